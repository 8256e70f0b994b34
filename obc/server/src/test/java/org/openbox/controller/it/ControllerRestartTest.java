package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.restassured.RestAssured;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.controller.ControllerApplication;
import org.openbox.controller.testobi.TestObi;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The controller restarted (Spring contexts in turn on one state directory): an
 * application the operator stopped stays stopped, the alert history is kept, and alerts from an OBI that kept running
 * through the restart and reports before its Hello are attributed to their application
 * (the graph, hence the provenance, is computed before the alert is routed).
 */
class ControllerRestartTest {

    @TempDir
    Path stateDir;

    private ConfigurableApplicationContext context;
    private TestObi obi;

    private final List<Process> processes = new java.util.ArrayList<>();

    /** First on OBI {@code test.replay.dpid}: replays {@code test.replay.trace} at its capture pace to eth1. */
    static final class ReplayApp extends RecordingApp {
        private final long dpid;
        private final String trace;

        ReplayApp(long dpid, String trace) {
            this.dpid = dpid;
            this.trace = trace;
        }

        @Override
        public String name() {
            return "replay";
        }

        @Override
        public int priority() {
            return 300;
        }

        @Override
        public List<org.openbox.api.Statement> statements() {
            return List.of(new org.openbox.api.Statement(
                    org.openbox.api.Location.obi(dpid),
                    new org.openbox.api.GraphBuilder()
                            .chain(
                                    new org.openbox.api.blocks.FromDump("src", trace).timing(true),
                                    new org.openbox.api.blocks.ToDevice("out", "eth1"))
                            .build()));
        }
    }

    @org.springframework.boot.test.context.TestConfiguration
    static class Replay {
        @org.springframework.context.annotation.Bean
        ReplayApp replayApp(org.springframework.core.env.Environment env) {
            return new ReplayApp(
                    Long.parseLong(env.getRequiredProperty("test.replay.dpid")),
                    env.getRequiredProperty("test.replay.trace"));
        }
    }

    private ConfigurableApplicationContext start(String... more) {
        List<String> props = new java.util.ArrayList<>(List.of(
                "openbox.state-dir=" + stateDir,
                "openbox.keepalive-interval=1s",
                "openbox.keepalive-timeout=2s",
                "openbox.request-timeout=3s",
                "openbox.insecure=true",
                "openbox.modules.signing-key=" + ControllerTestBase.TEST_SIGNING_KEY, // TestApps' module user
                // TestApps holds a deliberately broken application, refused while the others run
                "openbox.allow-failed-apps=true"));
        props.addAll(List.of(more));
        if (props.stream().noneMatch(p -> p.startsWith("server.port="))) props.add("server.port=0");
        boolean replay = props.stream().anyMatch(p -> p.startsWith("test.replay.trace="));
        ConfigurableApplicationContext c = new SpringApplicationBuilder(
                        replay
                                ? new Class<?>[] {ControllerApplication.class, TestApps.class, Replay.class}
                                : new Class<?>[] {ControllerApplication.class, TestApps.class})
                .run(props.stream().map(p -> "--" + p).toArray(String[]::new));
        RestAssured.port = ((WebServerApplicationContext) c).getWebServer().getPort();
        TestCredentials.asOperator();
        return c;
    }

    @AfterEach
    void close() throws InterruptedException {
        if (obi != null) obi.close();
        if (context != null) context.close();
        for (Process p : processes) {
            p.destroyForcibly();
            p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    private static long read(long dpid, String block) {
        var r = given().get("/api/obis/" + dpid + "/blocks/" + block + "/count");
        return r.statusCode() == 200 ? Long.parseLong(r.asString().trim()) : -1;
    }

    private static String onlyBlockOf(long dpid, String app, String block) {
        Map<String, List<Map<String, String>>> prov =
                given().get("/api/obis/" + dpid + "/graph").jsonPath().getMap("provenance");
        return prov.entrySet().stream()
                .filter(e -> e.getValue().equals(List.of(Map.of("app", app, "block", block))))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no block " + block + " in " + prov));
    }

    /**
     * A real OBI replays 8000 UDP packets over 8 s through replay, fw and ips while the
     * controller stops and starts again on the same port. The OBI keeps its graph, says Hello
     * to the new controller, gets the same merged graph (a swap that keeps every block), and
     * every packet it read left it: the source and output counters, which a rebuilt block
     * would have reset, both end at 8000.
     */
    @Test
    void trafficFlowsThroughAnObiWhileTheControllerRestarts(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(
                Boolean.getBoolean("openbox.obi.skip"), "-Dopenbox.obi.skip=true");
        long dpid = 181;
        int n = 8000;
        Path trace = dir.resolve("udp.pcap");
        List<Pcap.Packet> packets = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) packets.add(Pcap.Packet.udp(2000 + i % 8, "q" + i));
        Pcap.write(trace, packets, 1000);
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        int obiPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            obiPort = s.getLocalPort();
        }
        String[] props = {"server.port=" + port, "test.replay.trace=" + trace, "test.replay.dpid=" + dpid};
        context = start(props);
        Path log = dir.resolve("obi.log");
        processes.add(new ProcessBuilder(
                        RealObiTest.obiBinary().toString(),
                        "--dpid",
                        String.valueOf(dpid),
                        "--listen",
                        "127.0.0.1:" + obiPort,
                        "--controller",
                        "http://127.0.0.1:" + port,
                        "--workers",
                        "1",
                        "--insecure",
                        "--device-map",
                        "eth0=pcap:" + dir.resolve("unused.pcap") + ",eth1=pcap:" + dir.resolve("out.pcap"))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start());
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> String.valueOf(
                            given().get("/api/obis/" + dpid).jsonPath().getString("obi.graphStatus"))
                    .startsWith("running"));
            String src = onlyBlockOf(dpid, "replay", "src");
            String out = onlyBlockOf(dpid, "ips", "out");
            await().atMost(Duration.ofSeconds(10)).until(() -> read(dpid, src) > 0);
            long beforeStop = read(dpid, src);
            context.close();
            long stopped = System.nanoTime();
            context = start(props);
            long restartMillis = (System.nanoTime() - stopped) / 1_000_000;
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> given().get("/api/obis/" + dpid).statusCode() == 200
                            && String.valueOf(given().get("/api/obis/" + dpid)
                                            .jsonPath()
                                            .getString("obi.graphStatus"))
                                    .startsWith("running"));
            long afterReadoption = read(dpid, src);
            // the same merged graph, so the same block names
            assertThat(onlyBlockOf(dpid, "replay", "src")).isEqualTo(src);
            assertThat(afterReadoption)
                    .as("packets read while the controller was away (%d ms)", restartMillis)
                    .isGreaterThan(beforeStop);
            await().atMost(Duration.ofSeconds(20)).until(() -> read(dpid, src) == n);
            Thread.sleep(300);
            assertThat(read(dpid, out)).isEqualTo(n);
            System.out.printf(
                    "controller restart: %d ms without a controller; source read %d before, %d after re-adoption,"
                            + " %d of %d out at the end%n",
                    restartMillis, beforeStop, afterReadoption, read(dpid, out), n);
        } catch (AssertionError | Exception e) {
            throw new AssertionError(e.getMessage() + "\n--- OBI output ---\n" + Files.readString(log), e);
        }
    }

    private static String state(String app) {
        List<Map<String, Object>> apps = given().get("/api/apps").jsonPath().getList("$");
        return apps.stream()
                .filter(a -> app.equals(a.get("name")))
                .map(a -> (String) a.get("state"))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void operatorStopsSurviveARestartAndEarlyAlertsAreAttributed() throws Exception {
        long dpid = 180;
        context = start();
        given().post("/api/apps/lb/stop").then().statusCode(200);
        assertThat(state("lb")).isEqualTo("STOPPED");
        obi = new TestObi(dpid, "http://127.0.0.1:" + RestAssured.port);
        obi.hello();
        await().atMost(Duration.ofSeconds(20)).until(() -> given().get("/api/obis/" + dpid)
                .jsonPath()
                .getList("obi.apps")
                .equals(List.of("fw", "ips")));
        Map<String, List<Map<String, String>>> prov =
                given().get("/api/obis/" + dpid + "/graph").jsonPath().getMap("provenance");
        String ipsAlert = prov.entrySet().stream()
                .filter(e -> e.getValue().equals(List.of(Map.of("app", "ips", "block", "ips_alert"))))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow();
        obi.close();
        context.close();
        String saved = Files.readString(stateDir.resolve("controller-state.json"));
        assertThat(saved).contains("\"lb\"").contains("\"stoppedByOperator\" : true");

        context = start();
        assertThat(state("lb")).isEqualTo("STOPPED");
        assertThat(state("fw")).isEqualTo("RUNNING");
        assertThat(given().get("/api/apps").jsonPath().getList("findAll { it.name == 'lb' }.stoppedByOperator"))
                .containsExactly(true);
        // the OBI kept running: its alert comes before any Hello
        obi = new TestObi(dpid, "http://127.0.0.1:" + RestAssured.port);
        assertThat(obi.alert(ipsAlert, "while the controller was away").statusCode())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> !given().get("/api/alerts?app=ips")
                .jsonPath()
                .getList("findAll { it.dpid == " + dpid + " }")
                .isEmpty());
        assertThat(given().get("/api/alerts").jsonPath().getList("findAll { it.dpid == " + dpid + " }.app"))
                .containsOnly("ips");
        // the alert history outlives a controller restart
        context.close();
        context = start();
        assertThat(given().get("/api/alerts").jsonPath().getList("findAll { it.dpid == " + dpid + " }.message"))
                .containsExactly("while the controller was away");
        // started again by the operator: no longer remembered as stopped
        given().post("/api/apps/lb/start").then().statusCode(200);
        assertThat(Files.readString(stateDir.resolve("controller-state.json")))
                .doesNotContain("\"stoppedByOperator\" : true");
    }
}
