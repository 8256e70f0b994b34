package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.GraphBuilder;
import org.openbox.api.Location;
import org.openbox.api.Statement;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HtmlNormalizer;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.event.ErrorEvent;
import org.openbox.controller.apps.AppLifecycle;
import org.openbox.controller.apps.AppState;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The capability check with the real OBI binary: the OBI's Hello lists the block types it
 * runs (this OBI is started with --without-blocks HtmlNormalizer, so HtmlNormalizer is in the
 * catalogue but not run by this OBI). An application
 * using it on that OBI is not pushed there: the OBI keeps running the graph it had (fw and
 * ips), the application is FAILED on that OBI with the block, its type and the OBI named in
 * {@code /api/apps} and in the log, and it gets an UNSUPPORTED / UNSUPPORTED_BLOCK Error.
 * Stopped, it leaves no trace on the OBI.
 */
@ExtendWith(OutputCaptureExtension.class)
class CapabilityCheckRealObiTest extends ControllerTestBase {

    private static final long DPID = 133;
    private static final Duration REAL_WAIT = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    @Autowired
    AppLifecycle lifecycle;

    /** Normalises HTML on OBI 133 only. */
    static final class NormalizingApp extends RecordingApp {
        @Override
        public String name() {
            return "htmlnorm";
        }

        @Override
        public int priority() {
            return 5;
        }

        @Override
        public List<Statement> statements() {
            return List.of(new Statement(
                    Location.obi(DPID),
                    new GraphBuilder()
                            .chain(
                                    new FromDevice("in", "eth0"),
                                    new HtmlNormalizer("norm"),
                                    new ToDevice("out", "eth1"))
                            .build()));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private JsonPath detail() {
        return given().get("/api/obis/" + DPID).then().extract().jsonPath();
    }

    private Map<String, Object> appView(String name) {
        List<Map<String, Object>> apps = given().get("/api/apps").jsonPath().getList("$");
        return apps.stream()
                .filter(a -> name.equals(a.get("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no application " + name + " in /api/apps: " + apps));
    }

    @Test
    void aBlockTheObiLacksIsNotPushedAndItsApplicationIsTold(CapturedOutput output) throws Exception {
        Assumptions.assumeFalse(Boolean.getBoolean("openbox.obi.skip"), "-Dopenbox.obi.skip=true");
        Path bin = RealObiTest.obiBinary();
        Path in = dir.resolve("in.pcap");
        Pcap.write(in, List.of(Pcap.Packet.tcp(80, "GET / HTTP/1.0\r\n\r\n")));
        Path log = dir.resolve("obi.log");
        Process obi = new ProcessBuilder(
                        bin.toString(),
                        "--dpid",
                        String.valueOf(DPID),
                        "--listen",
                        "127.0.0.1:" + freePort(),
                        "--controller",
                        controllerUrl(),
                        "--workers",
                        "1",
                        "--insecure",
                        "--without-blocks",
                        "HtmlNormalizer",
                        "--device-map",
                        "eth0=pcap:" + in + ",eth1=pcap:" + dir.resolve("out.pcap"))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        NormalizingApp app = new NormalizingApp();
        try {
            await().atMost(REAL_WAIT).until(() -> String.valueOf(detail().getString("obi.graphStatus"))
                    .startsWith("running"));
            // what the OBI declares: the blocks it runs, not every block of the catalogue
            Map<String, Object> declared = detail().getMap("capabilities.processing_blocks");
            assertThat(declared)
                    .containsKeys("FromDevice", "HeaderClassifier", "ToDevice")
                    .doesNotContainKey("HtmlNormalizer");
            assertThat(detail().getList("obi.apps")).containsExactly("fw", "ips");
            Object running =
                    given().get("/api/obis/" + DPID + "/graph").jsonPath().get("graph");

            var entry = lifecycle.register(app, "test:CapabilityCheckRealObiTest");
            assertThat(entry.state()).as(String.valueOf(entry.error())).isEqualTo(AppState.STOPPED);
            assertThat(lifecycle.start("htmlnorm").ok()).isTrue();

            String reason = "OBI " + DPID + " does not run block 'norm' (HtmlNormalizer)";
            await().atMost(REAL_WAIT)
                    .until(() -> "FAILED".equals(appView("htmlnorm").get("state")));
            Map<String, Object> view = appView("htmlnorm");
            assertThat(String.valueOf(view.get("reason"))).contains(reason);
            assertThat(String.valueOf(view.get("action"))).contains("bypass on OBI [" + DPID + "]");
            await().atMost(REAL_WAIT).until(() -> !app.errors.isEmpty());
            ErrorEvent error = app.errors.get(0);
            assertThat(error.dpid()).isEqualTo(DPID);
            assertThat(error.type()).isEqualTo(ErrorType.UNSUPPORTED);
            assertThat(error.subtype()).isEqualTo(ErrorSubtype.UNSUPPORTED_BLOCK);
            assertThat(error.message()).contains(reason);
            assertThat(output.getOut()).contains("application 'htmlnorm': " + reason);

            // nothing was pushed: the OBI runs the graph it had, without an error of its own
            Thread.sleep(500);
            assertThat(given().get("/api/obis/" + DPID + "/graph").jsonPath().<Object>get("graph"))
                    .isEqualTo(running);
            assertThat(detail().getList("obi.apps")).containsExactly("fw", "ips");
            assertThat(String.valueOf(detail().getString("obi.graphStatus"))).startsWith("running");
            assertThat(detail().getString("obi.lastError")).isNull();
            assertThat(Files.readString(log)).doesNotContain("HtmlNormalizer");
            // the other applications are not blamed
            assertThat(String.valueOf(appView("fw").get("state"))).isEqualTo("RUNNING");
            assertThat(String.valueOf(appView("ips").get("state"))).isEqualTo("RUNNING");
        } catch (AssertionError | Exception e) {
            throw new AssertionError(
                    e.getMessage() + "\n--- OBI output ---\n" + (Files.exists(log) ? Files.readString(log) : ""), e);
        } finally {
            lifecycle.stop("htmlnorm");
            obi.destroyForcibly();
            obi.waitFor(5, TimeUnit.SECONDS);
        }
    }
}
