package org.openbox.controller.apps;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.openbox.api.Application;
import org.openbox.api.GraphBuilder;
import org.openbox.api.Location;
import org.openbox.api.ProcessingGraph;
import org.openbox.api.Statement;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderPayloadClassifier;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.PayloadPattern;
import org.openbox.controller.StartupProperties;
import org.openbox.controller.check.ConfigCheck;
import org.openbox.controller.check.ObiGraphChecker;
import org.openbox.controller.tls.InsecureProperties;
import org.openbox.controller.tls.TlsProperties;
import org.openbox.controller.tls.TransportSecurity;
import org.openbox.protocol.MessageCodec;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.env.StandardEnvironment;

/**
 * The configuration test with the real OBI binary (real Hyperscan compile): patterns Java
 * accepts and Hyperscan refuses are found, each named by the rule file line the application
 * gives for it. The binary is {@code -Dopenbox.obi.bin}, {@code $OPENBOX_OBI_BIN} or
 * build/obi/obi; without one the test fails saying how to build it.
 */
class ConfigCheckTest {

    /** Classifier "sig" with rows 0..2; rows 1 and 2 hold patterns Hyperscan refuses. */
    static final class Signatures extends Application {
        @Override
        public String name() {
            return "sigs";
        }

        @Override
        public List<Statement> statements() {
            return List.of(new Statement(Location.network(), graph()));
        }

        @Override
        public Optional<String> ruleOrigin(String block, int rule) {
            return block.equals("sig") ? Optional.of("sigs.rules:" + (10 + rule)) : Optional.empty();
        }

        static ProcessingGraph graph() {
            HeaderPayloadClassifier sig = new HeaderPayloadClassifier("sig")
                    .rule(PayloadPattern.regex("GET /admin"))
                    .rule(PayloadPattern.regex("\\Xabc"))
                    .rule(PayloadPattern.regex("a{70000}"));
            ToDevice out = new ToDevice("out", "eth1");
            return new GraphBuilder()
                    .connect(new FromDevice("in", "eth0"), sig)
                    .connect(sig, 0, out)
                    .connect(sig, 1, out)
                    .connect(sig, 2, out)
                    .build();
        }
    }

    static Path obiBinary() {
        String given = System.getProperty("openbox.obi.bin", System.getenv("OPENBOX_OBI_BIN"));
        Path bin = given != null && !given.isBlank() ? Path.of(given) : null;
        for (Path q = Path.of("").toAbsolutePath(); bin == null && q != null; q = q.getParent()) {
            if (Files.isDirectory(q.resolve("obi/src"))) {
                bin = q.resolve("build/obi/obi");
            }
        }
        if (bin == null || !Files.isExecutable(bin)) {
            throw new AssertionError("OBI binary not found at " + bin + ". Build it with './openbox build' (or "
                    + "cmake --build build/obi --target obi), or point -Dopenbox.obi.bin=... at an obi binary");
        }
        return bin;
    }

    private static AppCatalog catalogWithSignatures() {
        AppCatalog catalog = new AppCatalog();
        catalog.add(new AppEntry(
                "sigs",
                new Signatures(),
                "test",
                0,
                List.of(new PlacedGraph(Location.network(), Signatures.graph().toGraph())),
                AppState.STOPPED,
                null));
        return catalog;
    }

    private static int run(Path binary, AppCatalog catalog, ByteArrayOutputStream out, ByteArrayOutputStream err) {
        ObiGraphChecker obi = new ObiGraphChecker(
                new MessageCodec(), new StartupProperties(false, true, binary), new StandardEnvironment());
        return new ConfigCheck(catalog, obi, plainHttp())
                .run(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void everyRefusedPatternIsNamedByItsRuleLine() {
        AppCatalog catalog = catalogWithSignatures();
        catalog.add(new AppEntry(
                "fw",
                null,
                "test",
                0,
                List.of(),
                AppState.REFUSED,
                "fw.rules:3: unknown action 'dorp' (allow, drop, alert)"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(run(obiBinary(), catalog, out, err)).isEqualTo(1);
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).isEqualTo("fw.rules:3: unknown action 'dorp' (allow, drop, alert)");
        assertThat(lines.get(1))
                .startsWith("sigs.rules:11: block 'sig'")
                .contains("\\X")
                .endsWith("(BAD_REQUEST/BAD_PAYLOAD_MATCH)");
        assertThat(lines.get(2)).startsWith("sigs.rules:12: block 'sig'").endsWith("(BAD_REQUEST/BAD_PAYLOAD_MATCH)");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("3 problem(s)");
    }

    @Test
    void withoutAnObiBinaryTheRestIsCheckedAndThatIsSaid() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(run(Path.of("/nonexistent/obi"), catalogWithSignatures(), out, err))
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("note: no OBI binary (/nonexistent/obi)")
                .contains("configuration OK: 1 application(s)");
    }

    private static TransportSecurity plainHttp() {
        return new TransportSecurity(
                new TlsProperties(true),
                new InsecureProperties(true),
                new StartupProperties(false, true, null),
                new StaticListableBeanFactory().getBeanProvider(SslBundles.class));
    }

    @Test
    void missingCertificatesAreANoteNotAProblem() {
        TransportSecurity noCertificates = new TransportSecurity(
                new TlsProperties(true),
                new InsecureProperties(false),
                new StartupProperties(false, true, null),
                new StaticListableBeanFactory().getBeanProvider(SslBundles.class));
        ObiGraphChecker obi = new ObiGraphChecker(
                new MessageCodec(),
                new StartupProperties(false, true, Path.of("/nonexistent/obi")),
                new StandardEnvironment());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new ConfigCheck(new AppCatalog(), obi, noCertificates)
                .run(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("note: TLS is on but no certificates are configured")
                .contains("openbox.insecure=true")
                .contains("the controller would not start");
    }
}
