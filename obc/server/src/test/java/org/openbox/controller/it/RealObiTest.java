package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.CustomModule;
import org.openbox.api.GraphBuilder;
import org.openbox.api.Location;
import org.openbox.api.Statement;
import org.openbox.api.blocks.CustomBlock;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.event.AlertEvent;
import org.openbox.controller.apps.AppLifecycle;
import org.openbox.controller.apps.AppState;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The controller with the real OBI binary over real HTTP: Hello and registration, the
 * merged graph of fw and ips pushed after SetParameters and followed by a Barrier, reads
 * answered by the OBI itself, alerts raised by traffic (a pcap written here, bound to the
 * graph's devices with {@code --device-map eth0=pcap:IN,eth1=pcap:OUT}) reaching only their
 * owner, then the OBI killed (InstanceDown) and restarted (InstanceUp, graph pushed again).
 *
 * <p>The binary is {@code -Dopenbox.obi.bin} or {@code $OPENBOX_OBI_BIN}, by default
 * {@code <repo>/build/obi/obi} (built by {@code ./openbox build} and {@code ./openbox test}).
 * A missing binary fails the test with the command that builds it. Java-only developers can
 * opt out explicitly with {@code -Dopenbox.obi.skip=true} (reported as skipped).
 */
class RealObiTest extends ControllerTestBase {

    private static final long DPID = 101;
    private static final Duration REAL_WAIT = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    @Autowired
    AppLifecycle lifecycle;

    private final List<Process> processes = new ArrayList<>();
    private int lastObiPort;

    static Path obiBinary() {
        String given = System.getProperty("openbox.obi.bin", System.getenv("OPENBOX_OBI_BIN"));
        Path bin =
                given != null && !given.isBlank() ? Path.of(given) : repoRoot().resolve("build/obi/obi");
        if (!Files.isExecutable(bin)) {
            throw new AssertionError("OBI binary not found at " + bin.toAbsolutePath() + ". Build it with "
                    + "'./openbox build' (or: cmake -S obi -B build/obi -G Ninja -DCMAKE_BUILD_TYPE=Release && "
                    + "cmake --build build/obi --target obi), or point -Dopenbox.obi.bin=... / OPENBOX_OBI_BIN at "
                    + "an obi binary. To run the Java tests without it: -Dopenbox.obi.skip=true");
        }
        return bin;
    }

    private static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        for (Path q = p; q != null; q = q.getParent()) {
            if (Files.isDirectory(q.resolve("obi")) && Files.isDirectory(q.resolve("obc"))) {
                return q;
            }
        }
        return p;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private Process startObi(Path bin, Path in, Path out, int run) throws IOException {
        return startObi(bin, DPID, in, out, run);
    }

    /** Starts an OBI that trusts the controller's module signing key (the shared test key). */
    private Process startObi(Path bin, long dpid, Path in, Path out, int run) throws IOException {
        lastObiPort = freePort();
        ProcessBuilder pb = new ProcessBuilder(
                        bin.toString(),
                        "--dpid",
                        String.valueOf(dpid),
                        "--listen",
                        "127.0.0.1:" + lastObiPort,
                        "--controller",
                        controllerUrl(),
                        "--workers",
                        "1",
                        "--insecure",
                        "--device-map",
                        "eth0=pcap:" + in + ",eth1=pcap:" + out,
                        "--module-trust",
                        Path.of(TEST_TRUST).toAbsolutePath().toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("obi-" + run + ".log").toFile());
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    private JsonPath obiDetail() {
        return given().get("/api/obis/" + DPID).then().extract().jsonPath();
    }

    private String mergedBlockOfType(String type) {
        List<Map<String, Object>> blocks =
                given().get("/api/obis/" + DPID + "/graph").jsonPath().getList("graph.blocks");
        return blocks.stream()
                .filter(b -> type.equals(b.get("type")))
                .map(b -> (String) b.get("name"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + type + " in the merged graph: " + blocks));
    }

    /** Packets the OBI's own source block has read, by a ReadRequest through the operator API. */
    private long sourceCount() {
        String src = mergedBlockOfType("FromDevice");
        var r = given().get("/api/obis/" + DPID + "/blocks/" + src + "/count");
        return r.statusCode() == 200 ? Long.parseLong(r.asString().trim()) : -1;
    }

    private List<AlertEvent> alertsOf(RecordingApp app) {
        return app.alerts.stream().filter(a -> a.dpid() == DPID).toList();
    }

    @Test
    void realObiLifecycleGraphReadsAlertsAndReturn() throws Exception {
        Assumptions.assumeFalse(Boolean.getBoolean("openbox.obi.skip"), "-Dopenbox.obi.skip=true");
        Path bin = obiBinary();
        Path in = dir.resolve("in.pcap");
        // fw: ssh goes to its alert and is dropped; the others reach ips, which alerts on each
        Pcap.write(
                in,
                List.of(
                        Pcap.Packet.tcp(22, "ssh"),
                        Pcap.Packet.tcp(80, "GET / HTTP/1.0\r\n\r\n"),
                        Pcap.Packet.udp(53, "dns")));
        try {
            Process obi = startObi(bin, in, dir.resolve("out-1.pcap"), 1);

            // Hello: registered, with the capabilities it announced
            await().atMost(REAL_WAIT).until(() -> "UP".equals(obiDetail().getString("obi.state")));
            assertThat(obiDetail().getList("capabilities.proto_messages")).contains("AddCustomModuleRequest");
            // SetParameters, then the merged graph, acknowledged
            await().atMost(REAL_WAIT).until(() -> String.valueOf(obiDetail().getString("obi.graphStatus"))
                    .startsWith("running"));
            given().get("/api/obis/" + DPID + "/parameters")
                    .then()
                    .statusCode(200)
                    .body("keepalive_interval", org.hamcrest.Matchers.equalTo(1));
            assertThat(obiDetail().getList("obi.apps")).containsExactly("fw", "ips");
            List<String> fwCls = mergedBlocksOnlyOf(DPID, "fw", "cls");
            assertThat(fwCls).hasSize(1);

            // the OBI's own ReadRequest: its source read the three packets
            await().atMost(REAL_WAIT).until(() -> sourceCount() == 3);
            JsonNode raw = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(given().get("/api/obis/" + DPID + "/blocks/" + fwCls.get(0) + "/count")
                            .then()
                            .statusCode(200)
                            .extract()
                            .asString());
            assertThat(raw.isArray()).isTrue();

            // fw reads its own classifier through the controller: ssh 1, everything else 2
            // (earlier tests' OBIs must have timed out: a read goes to every OBI that is up)
            awaitOnlyUp(java.util.Set.of(DPID));
            await().atMost(REAL_WAIT).untilAsserted(() -> assertThat(fw.context
                            .handles()
                            .read("cls", "count")
                            .get(5, TimeUnit.SECONDS)
                            .toString())
                    .isEqualTo("[1,2]"));
            assertThat(fw.context
                            .handles()
                            .read("cls", "count_1")
                            .get(5, TimeUnit.SECONDS)
                            .asLong())
                    .isEqualTo(2);

            // alerts raised by the traffic reach only their owners, under their own block names
            await().atMost(REAL_WAIT)
                    .until(() -> alertsOf(fw).size() == 1 && alertsOf(ips).size() == 2);
            Thread.sleep(300);
            assertThat(alertsOf(fw)).extracting(AlertEvent::block).containsExactly("ssh_alert");
            assertThat(alertsOf(ips)).extracting(AlertEvent::block).containsExactly("ips_alert", "ips_alert");
            assertThat(lb.alerts.stream().filter(a -> a.dpid() == DPID)).isEmpty();

            // killed: missed KeepAlives make it DOWN
            obi.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            await().atMost(REAL_WAIT).until(() -> fw.downsOf(DPID) == 1 && ips.downsOf(DPID) == 1);
            assertThat(obiDetail().getString("obi.state")).isEqualTo("DOWN");

            // restarted: Hello again, UP, the graph pushed again (the new process reads the trace again)
            startObi(bin, in, dir.resolve("out-2.pcap"), 2);
            await().atMost(REAL_WAIT)
                    .until(() -> fw.upsOf(DPID) == 2 && "UP".equals(obiDetail().getString("obi.state")));
            await().atMost(REAL_WAIT).until(() -> sourceCount() == 3);
            await().atMost(REAL_WAIT).until(() -> alertsOf(fw).size() == 2);
            assertThat(obiDetail().getInt("obi.downCount")).isEqualTo(1);
        } catch (AssertionError | Exception e) {
            throw new AssertionError(e.getMessage() + "\n--- OBI output ---\n" + logs(), e);
        } finally {
            for (Process p : processes) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    /** Passes packets through SampleCounter, the block type of the OBI's sample custom module, then alerts. */
    static final class CountingApp extends RecordingApp {
        static final long DPID = 102;
        private final CustomModule module;

        CountingApp(CustomModule module) {
            this.module = module;
        }

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public int priority() {
            return 10;
        }

        @Override
        public List<CustomModule> customModules() {
            return List.of(module);
        }

        @Override
        public List<Statement> statements() {
            return List.of(new Statement(
                    Location.obi(DPID),
                    new GraphBuilder(module.catalogue())
                            .chain(
                                    new FromDevice("in", "eth0"),
                                    new CustomBlock("SampleCounter", "counter"),
                                    new org.openbox.api.blocks.Alert("seen").alert("counted", 1),
                                    new Discard("sink"))
                            .build()));
        }
    }

    /**
     * An application with a custom module on the real OBI: the controller sends the sample
     * module (obi/tests/control/sample_module, built next to the obi binary) before the
     * graph, the OBI loads it, the graph with its block type runs (the packets fw lets
     * through cross it and raise the application's alerts), and the module is removed once
     * the application stops. The controller signs the module with its key and the OBI trusts
     * that key (--module-trust); an unsigned module posted straight to the OBI is refused
     * with ADD_MODULE_FAILED while the graph with the signed module keeps running.
     */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void realObiLoadsAnApplicationsCustomModule(CapturedOutput output) throws Exception {
        Assumptions.assumeFalse(Boolean.getBoolean("openbox.obi.skip"), "-Dopenbox.obi.skip=true");
        Path bin = obiBinary();
        Path so = bin.resolveSibling("sample_module.so");
        if (!Files.isReadable(so)) {
            throw new AssertionError("sample custom module not found at " + so.toAbsolutePath() + ": build it with "
                    + "'cmake --build <build dir> --target obi_sample_module' (./openbox build builds every target)");
        }
        Path descriptor = dir.resolve("SampleCounter.json");
        Files.writeString(
                descriptor,
                "{\"name\": \"SampleCounter\", \"class\": \"static\", \"spec\": \"extension\","
                        + " \"description\": \"Counts packets.\", \"config\": [],"
                        + " \"read_handles\": [{\"name\": \"count\", \"type\": \"integer\"}],"
                        + " \"write_handles\": [], \"inputs\": 1, \"outputs\": 1}");
        CountingApp app = new CountingApp(CustomModule.fromFiles("sample", so, descriptor));
        var entry = lifecycle.register(app, "test:RealObiTest");
        assertThat(entry.state()).as(String.valueOf(entry.error())).isEqualTo(AppState.STOPPED);
        assertThat(lifecycle.start("counting").ok()).isTrue();
        Path in = dir.resolve("in.pcap");
        Pcap.write(
                in,
                List.of(
                        Pcap.Packet.tcp(22, "ssh"),
                        Pcap.Packet.tcp(80, "GET / HTTP/1.0\r\n\r\n"),
                        Pcap.Packet.udp(53, "dns")));
        String detail = "/api/obis/" + CountingApp.DPID;
        try {
            startObi(bin, CountingApp.DPID, in, dir.resolve("out-1.pcap"), 1);
            await().atMost(REAL_WAIT)
                    .until(() -> String.valueOf(given().get(detail).jsonPath().getString("obi.graphStatus"))
                            .startsWith("running"));
            assertThat(given().get(detail).jsonPath().getList("obi.modules")).containsExactly("sample");
            assertThat(given().get(detail).jsonPath().getList("obi.apps")).containsExactly("fw", "ips", "counting");
            // fw drops the ssh packet; the two others pass ips and reach the module's block
            await().atMost(REAL_WAIT).until(() -> app.alerts.size() == 2);
            assertThat(app.alerts).extracting(AlertEvent::block).containsExactly("seen", "seen");
            // the module's block is counting's alone: its read handle answers through the module's code
            assertThat(app.context
                            .handles()
                            .read("counter", "count")
                            .get(5, TimeUnit.SECONDS)
                            .asLong())
                    .isEqualTo(2);
            // the merge shares the final Discard with fw's: its count is not counting's to read
            assertThatThrownBy(() -> app.context.handles().read("sink", "count").get(5, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOf(org.openbox.protocol.ProtocolException.class)
                    .hasMessageContaining("application(s) [fw]")
                    .hasMessageContaining("refused");

            // Anyone who reaches the OBI's port with an unsigned module is refused (the OBI tells
            // the controller: an Error for a request it did not send), and nothing running changes.
            int unsignedXid = 9_000_001;
            String unsigned = "{\"type\": \"AddCustomModuleRequest\", \"xid\": " + unsignedXid
                    + ", \"module_name\": \"intruder\", \"module_content\": \""
                    + Base64.getEncoder().encodeToString(Files.readAllBytes(so)) + "\", \"translation\": null}";
            HttpResponse<String> posted = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(
                                            "http://127.0.0.1:" + lastObiPort + "/message/AddCustomModuleRequest"))
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(unsigned))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(posted.statusCode()).isEqualTo(200);
            await().atMost(REAL_WAIT).until(() -> output.getOut().contains("unsolicited Error xid " + unsignedXid));
            String refusal = output.getOut()
                    .lines()
                    .filter(l -> l.contains("unsolicited Error xid " + unsignedXid))
                    .findFirst()
                    .orElseThrow();
            assertThat(refusal)
                    .contains("INTERNAL_ERROR/ADD_MODULE_FAILED")
                    .contains("custom module \"intruder\" refused: it is not signed");
            assertThat(given().get(detail).jsonPath().getList("obi.modules")).containsExactly("sample");
            assertThat(String.valueOf(given().get(detail).jsonPath().getString("obi.graphStatus")))
                    .startsWith("running");
            assertThat(app.context
                            .handles()
                            .read("counter", "count")
                            .get(5, TimeUnit.SECONDS)
                            .asLong())
                    .isEqualTo(2);

            lifecycle.stop("counting");
            await().atMost(REAL_WAIT).until(() -> given().get(detail)
                    .jsonPath()
                    .getList("obi.modules")
                    .isEmpty());
            assertThat(given().get(detail).jsonPath().getString("obi.lastError"))
                    .isNull();
        } catch (AssertionError | Exception e) {
            throw new AssertionError(e.getMessage() + "\n--- OBI output ---\n" + logs(), e);
        } finally {
            lifecycle.stop("counting");
            for (Process p : processes) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private String logs() {
        StringBuilder sb = new StringBuilder();
        for (int run = 1; run <= 2; run++) {
            Path log = dir.resolve("obi-" + run + ".log");
            try {
                if (Files.exists(log)) {
                    sb.append("[run ").append(run).append("]\n").append(Files.readString(log));
                }
            } catch (IOException e) {
                sb.append(e);
            }
        }
        return sb.toString();
    }
}
