package org.openbox.controller.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.controller.testobi.TestPki;

/** The dpid of an OBI certificate: SAN URI urn:openbox:dpid:N first, else CN obi-N. */
class DpidCertificatesTest {

    @TempDir
    static Path dir;

    static TestPki pki;

    @BeforeAll
    static void certificates() {
        pki = TestPki.create(dir);
    }

    private static X509Certificate cert(Path p) throws Exception {
        try (InputStream in = Files.newInputStream(p)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static OptionalLong dpid(String name, String cn, String san) throws Exception {
        return DpidCertificates.dpidOf(cert(pki.custom(name, cn, san).cert()));
    }

    @Test
    void theSanUriNamesTheDpid() throws Exception {
        assertThat(DpidCertificates.dpidOf(cert(pki.obi(42).cert()))).hasValue(42);
        // the SAN wins over the CN
        assertThat(dpid("san-wins", "obi-7", "URI:urn:openbox:dpid:9")).hasValue(9);
        assertThat(dpid("largest", "x", "URI:urn:openbox:dpid:9223372036854775807"))
                .hasValue(Long.MAX_VALUE);
    }

    @Test
    void withoutTheUriTheCnNamesIt() throws Exception {
        assertThat(dpid("cn-only", "obi-12", "IP:127.0.0.1")).hasValue(12);
        assertThat(dpid("cn-no-san", "obi-0", null)).hasValue(0);
    }

    @Test
    void otherNamesNameNoDpid() throws Exception {
        assertThat(DpidCertificates.dpidOf(cert(pki.controller().cert()))).isEmpty();
        assertThat(dpid("two-dpids", "obi-3", "URI:urn:openbox:dpid:3,URI:urn:openbox:dpid:4"))
                .isEmpty();
        assertThat(dpid("leading-zero", "obi-012", "URI:urn:openbox:dpid:012")).isEmpty();
        assertThat(dpid("negative", "obi--1", "URI:urn:openbox:dpid:-1")).isEmpty();
        assertThat(dpid("too-large", "obi-9223372036854775808", "URI:urn:openbox:dpid:9223372036854775808"))
                .isEmpty();
        assertThat(dpid("suffix", "obi-5x", "URI:urn:openbox:dpid:5/x")).isEmpty();
    }
}
