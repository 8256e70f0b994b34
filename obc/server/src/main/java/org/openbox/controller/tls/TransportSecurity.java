package org.openbox.controller.tls;

import java.security.KeyStore;
import java.security.KeyStoreException;
import java.util.List;
import java.util.Optional;
import org.openbox.controller.StartupProperties;
import org.openbox.controller.apps.StartupRefusedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.stereotype.Component;

/**
 * Whether the southbound channel runs mutual TLS, and with which certificates: the SSL
 * bundle {@value TlsProperties#BUNDLE} (controller certificate and key, and the CA that
 * signs OBI certificates). Plain HTTP only with {@code openbox.insecure=true}, announced by a
 * warning. Without that and without a usable bundle the controller does not start (one line,
 * see {@link StartupRefusedException}); the configuration test ({@code --check}) serves
 * nothing, so there the problem is only a note.
 */
@Component
public class TransportSecurity {

    private static final Logger log = LoggerFactory.getLogger(TransportSecurity.class);

    private final SslBundle bundle; // null: plain HTTP
    private final String problem; // why TLS cannot run (configuration test only)

    public TransportSecurity(
            TlsProperties tls,
            InsecureProperties insecure,
            StartupProperties startup,
            ObjectProvider<SslBundles> bundles) {
        if (insecure.insecure()) {
            log.warn("openbox.insecure=true: the southbound channel is plain HTTP both ways; OBIs and the"
                    + " controller are not authenticated and any host can speak for any dpid");
            this.bundle = null;
            this.problem = null;
            return;
        }
        String why;
        SslBundle found = null;
        if (!tls.enabled()) {
            why = "openbox.tls.enabled=false: plain HTTP also needs openbox.insecure=true";
        } else {
            found = lookUp(bundles);
            why = found == null ? noBundle() : incomplete(found);
        }
        if (why != null && !startup.check()) {
            throw new StartupRefusedException(List.of("openbox controller: " + why));
        }
        this.bundle = why == null ? found : null;
        this.problem = why;
        if (bundle != null) {
            log.info(
                    "southbound TLS on (SSL bundle '{}'): OBIs need a client certificate from its CA",
                    TlsProperties.BUNDLE);
        }
    }

    /** True when the southbound channel runs mutual TLS. */
    public boolean enabled() {
        return bundle != null;
    }

    /** The bundle, when TLS is on. */
    public Optional<SslBundle> bundle() {
        return Optional.ofNullable(bundle);
    }

    /** {@code https} or {@code http}: the scheme of OBI endpoints. */
    public String scheme() {
        return enabled() ? "https" : "http";
    }

    /** Why TLS could not be set up (only when the configuration test ran without a usable bundle). */
    public Optional<String> problem() {
        return Optional.ofNullable(problem);
    }

    private static SslBundle lookUp(ObjectProvider<SslBundles> bundles) {
        try {
            SslBundles all = bundles.getIfAvailable();
            return all == null ? null : all.getBundle(TlsProperties.BUNDLE);
        } catch (NoSuchSslBundleException e) {
            return null;
        } catch (BeansException e) {
            Throwable root = e.getMostSpecificCause();
            throw new StartupRefusedException(List.of("openbox controller: SSL bundle '" + TlsProperties.BUNDLE
                    + "' cannot be loaded: " + oneLine(root.getMessage())));
        }
    }

    private static String noBundle() {
        return "TLS is on but no certificates are configured: set spring.ssl.bundle.pem." + TlsProperties.BUNDLE
                + ".keystore.certificate, .keystore.private-key and .truststore.certificate (./openbox pki creates"
                + " them), or run plain HTTP with openbox.insecure=true";
    }

    /** Null when the bundle has the controller's key and certificate and a CA; else what is missing. */
    private static String incomplete(SslBundle b) {
        String prefix = "SSL bundle '" + TlsProperties.BUNDLE + "' ";
        try {
            KeyStore keys = b.getStores().getKeyStore();
            KeyStore trust = b.getStores().getTrustStore();
            if (keys == null || keys.size() == 0) {
                return prefix + "has no controller certificate and key (spring.ssl.bundle.pem." + TlsProperties.BUNDLE
                        + ".keystore.certificate and .keystore.private-key)";
            }
            if (trust == null || trust.size() == 0) {
                return prefix + "has no CA to check OBI certificates with (spring.ssl.bundle.pem."
                        + TlsProperties.BUNDLE + ".truststore.certificate)";
            }
        } catch (KeyStoreException | RuntimeException e) {
            return prefix + "cannot be loaded: " + oneLine(String.valueOf(e.getMessage()));
        }
        return null;
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
