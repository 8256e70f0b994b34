package org.openbox.controller.tls;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * The dpid an OBI certificate stands for: its subject alternative name
 * {@code URI:urn:openbox:dpid:N}, else a subject {@code CN=obi-N} (N decimal, 0 .. 2^63-1).
 * A certificate naming two different dpids in its URIs names none.
 */
public final class DpidCertificates {

    private static final int SAN_URI = 6;
    private static final Pattern URN = Pattern.compile("urn:openbox:dpid:(0|[1-9][0-9]{0,18})");
    private static final Pattern CN = Pattern.compile("obi-(0|[1-9][0-9]{0,18})");

    private DpidCertificates() {}

    /** The certificate's dpid, or empty when it names none. */
    public static OptionalLong dpidOf(X509Certificate cert) {
        Set<Long> fromSan = fromSan(cert);
        if (!fromSan.isEmpty()) {
            return fromSan.size() == 1 ? OptionalLong.of(fromSan.iterator().next()) : OptionalLong.empty();
        }
        String cn = commonName(cert);
        return cn == null ? OptionalLong.empty() : parse(CN.matcher(cn));
    }

    /** The subject's CN, or null. */
    public static String commonName(X509Certificate cert) {
        try {
            LdapName name = new LdapName(cert.getSubjectX500Principal().getName());
            for (Rdn rdn : name.getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return String.valueOf(rdn.getValue());
                }
            }
        } catch (InvalidNameException e) {
            return null;
        }
        return null;
    }

    /** The dpids of the certificate's {@code urn:openbox:dpid:N} URIs. */
    private static Set<Long> fromSan(X509Certificate cert) {
        Collection<List<?>> names;
        try {
            names = cert.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return Set.of();
        }
        if (names == null) {
            return Set.of();
        }
        Set<Long> found = new HashSet<>();
        for (List<?> entry : names) {
            if (entry.size() < 2
                    || !(entry.get(0) instanceof Integer kind)
                    || kind != SAN_URI
                    || !(entry.get(1) instanceof String uri)) {
                continue;
            }
            parse(URN.matcher(uri)).ifPresent(found::add);
        }
        return found;
    }

    private static OptionalLong parse(Matcher m) {
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(m.group(1)));
        } catch (NumberFormatException e) {
            return OptionalLong.empty(); // beyond a long
        }
    }
}
