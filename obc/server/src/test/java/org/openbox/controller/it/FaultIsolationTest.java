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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.FailureMode;
import org.openbox.api.GraphBuilder;
import org.openbox.api.Location;
import org.openbox.api.Statement;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.FromDump;
import org.openbox.api.blocks.HeaderClassifier;
import org.openbox.api.blocks.RegexClassifier;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;
import org.openbox.controller.apps.AppLifecycle;
import org.openbox.controller.apps.AppState;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Fault isolation, failure modes, no-application graphs and live reload with the real OBI
 * binary over real HTTP (the binary as in {@link RealObiTest}). The pattern {@code (ab)\1x}
 * is valid for the controller (Java regex) but Hyperscan in the OBI refuses it.
 */
class FaultIsolationTest extends ControllerTestBase {

    private static final Duration REAL_WAIT = Duration.ofSeconds(20);
    private static final String BAD_PATTERN = "(ab)\\1x";
    /** How the OBI's error names the pattern: a config value is quoted as JSON. */
    private static final String BAD_PATTERN_IN_ERROR = "\"(ab)\\\\1x\"";

    @TempDir
    Path dir;

    @Autowired
    AppLifecycle lifecycle;

    private final List<Process> processes = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();

    /** On one OBI, first in the chain: a RegexClassifier with the pattern the OBI refuses. */
    static final class RegexApp extends RecordingApp {
        private final String name;
        private final long dpid;
        private final FailureMode mode;

        RegexApp(String name, long dpid, FailureMode mode) {
            this.name = name;
            this.dpid = dpid;
            this.mode = mode;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int priority() {
            return 300;
        }

        @Override
        public FailureMode failureMode() {
            return mode;
        }

        @Override
        public List<Statement> statements() {
            RegexClassifier re = new RegexClassifier("re").pattern(BAD_PATTERN, "GET");
            return List.of(new Statement(
                    Location.obi(dpid),
                    new GraphBuilder()
                            .connect(new FromDevice("in", "eth0"), re)
                            .connect(re, 0, new Discard("bad"))
                            .connect(re, 1, new ToDevice("out", "eth1"))
                            .build()));
        }
    }

    /**
     * Reads its rules from a file on every statements() call: a line {@code deny PORT} sends
     * UDP to that port to Discard {@code deny}; a line {@code regex PATTERN} adds a
     * RegexClassifier in front of the output. The source is a FromDump with timing.
     */
    static final class FileRulesApp extends RecordingApp {
        private final long dpid;
        private final Path rules;
        private final Path trace;

        FileRulesApp(long dpid, Path rules, Path trace) {
            this.dpid = dpid;
            this.rules = rules;
            this.trace = trace;
        }

        @Override
        public String name() {
            return "filerules";
        }

        @Override
        public int priority() {
            return 20;
        }

        @Override
        public List<Statement> statements() {
            HeaderClassifier acl = new HeaderClassifier("acl");
            String regex = null;
            int denies = 0;
            try {
                for (String line : Files.readAllLines(rules)) {
                    String[] w = line.trim().split("\\s+", 2);
                    if (w[0].equals("deny")) {
                        acl.rule(Match.of().udpDst(Integer.parseInt(w[1])));
                        denies++;
                    } else if (w[0].equals("regex")) {
                        regex = w[1];
                    } else if (!w[0].isEmpty()) {
                        throw new IllegalArgumentException(rules + ": unknown rule '" + line + "'");
                    }
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            acl.rule(Match.of());
            GraphBuilder b = new GraphBuilder().connect(new FromDump("src", trace.toString()).timing(true), acl);
            Discard deny = new Discard("deny");
            ToDevice out = new ToDevice("out", "eth1");
            for (int i = 0; i < denies; i++) b.connect(acl, i, deny);
            if (regex == null) {
                b.connect(acl, denies, out);
            } else {
                RegexClassifier re = new RegexClassifier("re").pattern(regex, ".");
                b.connect(acl, denies, re)
                        .connect(re, 0, new Discard("re_drop"))
                        .connect(re, 1, out);
            }
            return List.of(new Statement(Location.obi(dpid), b.build()));
        }
    }

    @BeforeEach
    void needsObi() {
        Assumptions.assumeFalse(Boolean.getBoolean("openbox.obi.skip"), "-Dopenbox.obi.skip=true");
    }

    @AfterEach
    void stopObis() throws InterruptedException {
        for (Process p : processes) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private void startObi(long dpid, Path in, Path out) throws IOException {
        Path log = dir.resolve("obi-" + dpid + "-" + logs.size() + ".log");
        logs.add(log);
        processes.add(new ProcessBuilder(
                        RealObiTest.obiBinary().toString(),
                        "--dpid",
                        String.valueOf(dpid),
                        "--listen",
                        "127.0.0.1:" + freePort(),
                        "--controller",
                        controllerUrl(),
                        "--workers",
                        "1",
                        "--insecure",
                        "--device-map",
                        "eth0=pcap:" + in + ",eth1=pcap:" + out)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start());
    }

    private AssertionError withLogs(Throwable e) {
        StringBuilder sb = new StringBuilder(String.valueOf(e.getMessage())).append("\n--- OBI output ---\n");
        for (Path p : logs) {
            try {
                sb.append(p.getFileName()).append(":\n").append(Files.readString(p));
            } catch (IOException x) {
                sb.append(x);
            }
        }
        return new AssertionError(sb.toString(), e);
    }

    private static JsonPath obiView(long dpid) {
        return given().get("/api/obis/" + dpid).then().extract().jsonPath();
    }

    private static Map<String, Object> app(String name) {
        List<Map<String, Object>> apps = given().get("/api/apps").jsonPath().getList("$");
        return apps.stream().filter(a -> name.equals(a.get("name"))).findFirst().orElseThrow();
    }

    private static long count(long dpid, String block, String handle) {
        var r = given().get("/api/obis/" + dpid + "/blocks/" + block + "/" + handle);
        return r.statusCode() == 200 ? Long.parseLong(r.asString().trim()) : -1;
    }

    private static long appCount(String app, String block) {
        var r = given().get("/api/apps/" + app + "/blocks/" + block + "/count");
        return r.statusCode() == 200 ? Long.parseLong(r.asString().trim()) : -1;
    }

    private static String mergedBlockOfType(long dpid, String type) {
        List<Map<String, Object>> blocks =
                given().get("/api/obis/" + dpid + "/graph").jsonPath().getList("graph.blocks");
        return blocks.stream()
                .filter(b -> type.equals(b.get("type")))
                .map(b -> (String) b.get("name"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + type + " in " + blocks));
    }

    private Path trace() throws IOException {
        Path in = dir.resolve("in.pcap");
        Pcap.write(
                in,
                List.of(
                        Pcap.Packet.tcp(22, "ssh"),
                        Pcap.Packet.tcp(80, "GET / HTTP/1.0\r\n\r\n"),
                        Pcap.Packet.udp(53, "dns")));
        return in;
    }

    @Test
    void anApplicationTheObiRefusesFailsAloneAndItsTrafficBypassesIt() throws Exception {
        long dpid = 160;
        RegexApp bad = new RegexApp("regex-open", dpid, FailureMode.OPEN);
        assertThat(lifecycle.register(bad, "test:FaultIsolationTest").state()).isEqualTo(AppState.STOPPED);
        assertThat(lifecycle.start("regex-open").ok()).isTrue();
        try {
            startObi(dpid, trace(), dir.resolve("out.pcap"));
            // the merged graph of the three is refused; regex-open is traced and left out there
            await().atMost(REAL_WAIT).until(() -> String.valueOf(obiView(dpid).getString("obi.graphStatus"))
                    .startsWith("running"));
            assertThat(obiView(dpid).getList("obi.apps")).containsExactly("fw", "ips");
            assertThat(obiView(dpid).getMap("obi.fallbacks")).containsEntry("regex-open", "bypass");
            assertThat(obiView(dpid).getString("obi.lastError")).isNull(); // the refusal is over: the others run
            Map<String, Object> view = app("regex-open");
            assertThat(view.get("state")).isEqualTo("FAILED");
            assertThat(view.get("failureMode")).isEqualTo("open");
            assertThat((String) view.get("action")).contains("bypass").contains(String.valueOf(dpid));
            assertThat(((Map<?, ?>) view.get("failedOn"))
                            .get(String.valueOf(dpid))
                            .toString())
                    .contains(BAD_PATTERN_IN_ERROR);
            assertThat(app("fw").get("state")).isEqualTo("RUNNING");
            // the others' traffic flows: fw alerts on ssh, ips on the two others
            await().atMost(REAL_WAIT)
                    .until(() -> fw.alerts.stream()
                                            .filter(a -> a.dpid() == dpid)
                                            .count()
                                    == 1
                            && ips.alerts.stream().filter(a -> a.dpid() == dpid).count() == 2);
            // the state is a metric
            String prom = given().get("/actuator/prometheus").asString();
            assertThat(prom)
                    .contains("openbox_app_state{app=\"regex-open\",state=\"FAILED\"} 1.0")
                    .contains("openbox_app_state{app=\"fw\",state=\"RUNNING\"} 1.0");
        } catch (AssertionError | Exception e) {
            throw withLogs(e);
        } finally {
            lifecycle.stop("regex-open");
        }
    }

    @Test
    void aClosedApplicationThatCannotRunDropsItsLocationsTraffic() throws Exception {
        long dpid = 161;
        RegexApp bad = new RegexApp("regex-closed", dpid, FailureMode.CLOSED);
        lifecycle.register(bad, "test:FaultIsolationTest");
        assertThat(lifecycle.start("regex-closed").ok()).isTrue();
        try {
            startObi(dpid, trace(), dir.resolve("out.pcap"));
            await().atMost(REAL_WAIT).until(() -> String.valueOf(obiView(dpid).getString("obi.graphStatus"))
                    .startsWith("running"));
            assertThat(obiView(dpid).getMap("obi.fallbacks")).containsEntry("regex-closed", "drop");
            assertThat(obiView(dpid).getList("obi.apps")).isEmpty();
            // every packet is dropped and counted; nobody downstream sees one
            await().atMost(REAL_WAIT).until(() -> count(dpid, "failsafe-drop", "count") == 3);
            assertThat(app("regex-closed").get("action").toString()).contains("drop");
            Thread.sleep(300);
            assertThat(fw.alerts.stream().filter(a -> a.dpid() == dpid)).isEmpty();
            assertThat(ips.alerts.stream().filter(a -> a.dpid() == dpid)).isEmpty();
        } catch (AssertionError | Exception e) {
            throw withLogs(e);
        } finally {
            lifecycle.stop("regex-closed");
        }
    }

    /**
     * Refused at load (its graph uses a block type of a custom module it does not declare),
     * closed: where it would run, traffic is dropped.
     */
    static final class RefusedClosedApp extends RecordingApp {
        static final long DPID = 163;

        @Override
        public String name() {
            return "refused-closed";
        }

        @Override
        public FailureMode failureMode() {
            return FailureMode.CLOSED;
        }

        @Override
        public List<Statement> statements() {
            return List.of(new Statement(
                    Location.obi(DPID),
                    new GraphBuilder(TestApps.ModuleUser.module().catalogue())
                            .chain(
                                    new FromDevice("in", "eth0"),
                                    new org.openbox.api.blocks.CustomBlock("TestCounter", "counter"),
                                    new ToDevice("out", "eth1"))
                            .build()));
        }
    }

    @Test
    void anApplicationRefusedAtLoadStillDropsItsTrafficWhenClosed() throws Exception {
        long dpid = RefusedClosedApp.DPID;
        var entry = lifecycle.register(new RefusedClosedApp(), "test:FaultIsolationTest");
        assertThat(entry.state()).isEqualTo(AppState.REFUSED);
        assertThat(entry.error()).contains("TestCounter");
        startObi(dpid, trace(), dir.resolve("out.pcap"));
        try {
            await().atMost(REAL_WAIT).until(() -> String.valueOf(obiView(dpid).getString("obi.graphStatus"))
                    .startsWith("running"));
            assertThat(obiView(dpid).getMap("obi.fallbacks"))
                    .as("%s / %s", app("refused-closed"), obiView(dpid).prettify())
                    .containsEntry("refused-closed", "drop");
            await().atMost(REAL_WAIT).until(() -> count(dpid, "failsafe-drop", "count") == 3);
            assertThat(app("refused-closed")).containsEntry("state", "REFUSED").containsEntry("action", "drop");
            Thread.sleep(300);
            assertThat(ips.alerts.stream().filter(a -> a.dpid() == dpid)).isEmpty();
        } catch (AssertionError | Exception e) {
            throw withLogs(e);
        }
    }

    @Test
    void withNoApplicationTheObiGetsAPassGraphNotARefusedOne() throws Exception {
        long dpid = 162;
        long dropping = 164; // openbox.no-app-action-per-obi.164=drop (ControllerTestBase)
        try {
            startObi(dpid, trace(), dir.resolve("out.pcap"));
            startObi(dropping, trace(), dir.resolve("out-164.pcap"));
            await().atMost(REAL_WAIT)
                    .until(() -> String.valueOf(obiView(dpid).getString("obi.graphStatus"))
                                    .startsWith("running")
                            && String.valueOf(obiView(dropping).getString("obi.graphStatus"))
                                    .startsWith("running"));
            awaitOnlyUp(java.util.Set.of(dpid, dropping));
            lifecycle.stop("fw");
            lifecycle.stop("ips");
            await().atMost(REAL_WAIT)
                    .until(() ->
                            "pass".equals(obiView(dpid).getMap("obi.fallbacks").get("(no application)"))
                                    && obiView(dpid).getInt("obi.blocks") == 2
                                    && String.valueOf(obiView(dpid).getString("obi.graphStatus"))
                                            .startsWith("running"));
            assertThat(obiView(dpid).getString("obi.lastError")).isNull();
            await().atMost(REAL_WAIT)
                    .until(() -> "drop"
                                    .equals(obiView(dropping)
                                            .getMap("obi.fallbacks")
                                            .get("(no application)"))
                            && String.valueOf(obiView(dropping).getString("obi.graphStatus"))
                                    .startsWith("running"));
            assertThat(given().get("/api/obis/" + dropping + "/graph")
                            .jsonPath()
                            .getList("graph.blocks.type"))
                    .containsExactly("FromDevice", "Discard");
            assertThat(obiView(dropping).getString("obi.lastError")).isNull();
            // the OBI runs it: the source forwards to the output device
            await().atMost(REAL_WAIT).until(() -> count(dpid, mergedBlockOfType(dpid, "ToDevice"), "count") == 3);
            // an application again: its graph replaces the pass graph, no stale error
            lifecycle.start("fw");
            await().atMost(REAL_WAIT)
                    .until(() -> obiView(dpid).getList("obi.apps").equals(List.of("fw"))
                            && String.valueOf(obiView(dpid).getString("obi.graphStatus"))
                                    .startsWith("running"));
            assertThat(obiView(dpid).getString("obi.lastError")).isNull();
        } catch (AssertionError | Exception e) {
            throw withLogs(e);
        } finally {
            lifecycle.start("fw");
            lifecycle.start("ips");
        }
    }

    /**
     * Live reload under traffic: 3000 UDP packets replayed over 3 s (FromDump with timing);
     * the rules change three times while they flow. Every packet read is either sent or
     * dropped by a rule: none is lost by a reload. A reload with a rule file the application
     * refuses (400) or with a pattern the OBI refuses (422) leaves the running graph alone.
     */
    @Test
    void reloadSwapsRulesUnderTrafficWithoutLosingAPacket() throws Exception {
        long dpid = 170;
        int n = 3000;
        Path rules = dir.resolve("rules.txt");
        Files.writeString(rules, "deny 1000\n");
        Path trace = dir.resolve("udp.pcap");
        List<Pcap.Packet> packets = new ArrayList<>();
        for (int i = 0; i < n; i++) packets.add(Pcap.Packet.udp(1000 + i % 4, "p" + i));
        Pcap.write(trace, packets, 1000);
        FileRulesApp app = new FileRulesApp(dpid, rules, trace);
        lifecycle.register(app, "test:FaultIsolationTest");
        lifecycle.stop("fw");
        lifecycle.stop("ips");
        try {
            assertThat(lifecycle.start("filerules").ok()).isTrue();
            startObi(dpid, trace(), dir.resolve("out.pcap"));
            await().atMost(REAL_WAIT)
                    .until(() -> String.valueOf(obiView(dpid).getString("obi.graphStatus"))
                                    .startsWith("running")
                            && obiView(dpid).getList("obi.apps").equals(List.of("filerules")));
            String src = mergedBlocksOnlyOf(dpid, "filerules", "src").get(0);
            await().atMost(REAL_WAIT).until(() -> count(dpid, src, "count") > 0);
            for (int port = 1001; port <= 1003; port++) {
                Thread.sleep(500);
                Files.writeString(rules, "deny " + port + "\n");
                given().post("/api/apps/filerules/reload")
                        .then()
                        .statusCode(200)
                        .body("ok", org.hamcrest.Matchers.is(true));
            }
            // the reloads happened while the trace was being replayed, and the OBI runs the last rules
            long readAtLastReload = count(dpid, src, "count");
            assertThat(readAtLastReload).isBetween(1L, (long) n - 1);
            assertThat(given().get("/api/obis/" + dpid + "/graph").asString()).contains("\"UDP_DST\":1003");
            // a rule file the application refuses: 400, nothing changes
            Files.writeString(rules, "deny 1003\nallow everything\n");
            given().post("/api/apps/filerules/reload")
                    .then()
                    .statusCode(400)
                    .body("message", org.hamcrest.Matchers.containsString("unknown rule"));
            // a pattern the OBI refuses: 422 with the OBI's reason; the old graph keeps running
            Object before =
                    given().get("/api/obis/" + dpid + "/graph").jsonPath().get("graph");
            Files.writeString(rules, "deny 1003\nregex " + BAD_PATTERN + "\n");
            given().post("/api/apps/filerules/reload")
                    .then()
                    .statusCode(422)
                    .body("message", org.hamcrest.Matchers.containsString(BAD_PATTERN_IN_ERROR));
            assertThat(given().get("/api/obis/" + dpid + "/graph").jsonPath().<Object>get("graph"))
                    .isEqualTo(before);
            assertThat(app("filerules").get("state")).isEqualTo("RUNNING");

            await().atMost(REAL_WAIT).until(() -> appCount("filerules", "src") == n);
            Thread.sleep(300);
            // ToDevice's count is the OBI's own handle (not in the catalogue): read the merged block
            long sent = count(dpid, mergedBlocksOnlyOf(dpid, "filerules", "out").get(0), "count");
            long denied = appCount("filerules", "deny");
            assertThat(sent + denied).as("sent %d + denied %d", sent, denied).isEqualTo(n);
            // about every fourth packet goes to the port denied at the time (one more or less per switch)
            assertThat(denied).isBetween((long) n / 4 - 3, (long) n / 4 + 3);
            assertThat(sent).isGreaterThan(0);
            assertThat(app("filerules").get("reloadedAt")).isNotNull();
        } catch (AssertionError | Exception e) {
            throw withLogs(e);
        } finally {
            lifecycle.stop("filerules");
            lifecycle.start("fw");
            lifecycle.start("ips");
        }
    }
}
