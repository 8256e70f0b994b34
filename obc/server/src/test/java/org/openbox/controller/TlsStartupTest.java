package org.openbox.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.controller.testobi.TestPki;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** TLS is on by default: without certificates the controller does not start, and says why in one line. */
class TlsStartupTest {

    @TempDir
    Path tmp;

    private String startupFailure(String... props) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--openbox.state-dir=" + tmp.resolve("state")));
        for (String p : props) {
            args.add("--" + p);
        }
        Throwable t = catchThrowable(() -> new SpringApplicationBuilder(ControllerApplication.class)
                .run(args.toArray(String[]::new))
                .close());
        assertThat(t).as("the controller refused to start").isNotNull();
        return ControllerApplication.StartupFailure.describe(t);
    }

    @Test
    void noCertificatesAndNotInsecureRefusesToStart() {
        assertThat(startupFailure())
                .isEqualTo(
                        "openbox controller: TLS is on but no certificates are configured:"
                                + " set spring.ssl.bundle.pem.openbox.keystore.certificate, .keystore.private-key and"
                                + " .truststore.certificate (./openbox pki creates them), or run plain HTTP with openbox.insecure=true");
    }

    @Test
    void turningTlsOffNeedsInsecure() {
        assertThat(startupFailure("openbox.tls.enabled=false"))
                .isEqualTo(
                        "openbox controller: openbox.tls.enabled=false: plain HTTP also needs openbox.insecure=true");
    }

    @Test
    void aBundleWithoutTheCaRefusesToStart() {
        TestPki pki = TestPki.create(tmp);
        String failure = startupFailure(
                "spring.ssl.bundle.pem.openbox.keystore.certificate="
                        + TestPki.location(pki.controller().cert()),
                "spring.ssl.bundle.pem.openbox.keystore.private-key="
                        + TestPki.location(pki.controller().key()));
        assertThat(failure)
                .isEqualTo("openbox controller: SSL bundle 'openbox' has no CA to check OBI certificates"
                        + " with (spring.ssl.bundle.pem.openbox.truststore.certificate)");
    }

    @Test
    void anUnreadableCertificateRefusesToStartInOneLine() {
        TestPki pki = TestPki.create(tmp);
        String failure = startupFailure(
                "spring.ssl.bundle.pem.openbox.keystore.certificate=" + TestPki.location(tmp.resolve("missing.crt")),
                "spring.ssl.bundle.pem.openbox.keystore.private-key="
                        + TestPki.location(pki.controller().key()),
                "spring.ssl.bundle.pem.openbox.truststore.certificate=" + TestPki.location(pki.caCert()));
        assertThat(failure)
                .startsWith("openbox controller: ")
                .contains("missing.crt")
                .doesNotContain("\n");
    }

    @Test
    void insecureServesPlainHttp() {
        try (ConfigurableApplicationContext c = new SpringApplicationBuilder(ControllerApplication.class)
                .run("--server.port=0", "--openbox.state-dir=" + tmp.resolve("state"), "--openbox.insecure=true")) {
            WebServerApplicationContext web = (WebServerApplicationContext) c;
            assertThat(web.getWebServer().getPort()).isPositive();
            assertThat(c.getBean(org.openbox.controller.obi.ObiHttp.class).scheme())
                    .isEqualTo("http");
        }
    }
}
