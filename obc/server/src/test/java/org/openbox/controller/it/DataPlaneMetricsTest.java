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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.message.GlobalStatsRequest;
import org.openbox.protocol.message.SetParametersRequest;
import org.springframework.test.context.TestPropertySource;

/**
 * Data-plane metrics at /actuator/prometheus, collected by the controller every 300 ms:
 * a real OBI runs fw and ips on a pcap and, subscribed by the controller, attaches its
 * figures to its KeepAlives; the scraped text carries its packets and bytes
 * (equal to what /api/obis/{dpid}/stats answers), fw's per-rule hits and block counters under
 * fw's own block names, the alerts by application and severity and the graph swap timer.
 * A test OBI that knows only the spec's parameters refuses the subscription once and is
 * collected with GlobalStats requests, with the same series. A test OBI that never answers
 * GlobalStats gets one request per timeout, not one per round.
 */
@TestPropertySource(properties = {"openbox.metrics.interval=300ms", "openbox.metrics.timeout=1500ms"})
class DataPlaneMetricsTest extends ControllerTestBase {

    private static final long DPID = 131;
    private static final Duration REAL_WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    /** One sample line of the Prometheus text format. */
    record Line(String name, Map<String, String> labels, double value) {}

    static List<Line> scrape() {
        String text = given().get("/actuator/prometheus")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        List<Line> out = new ArrayList<>();
        for (String l : text.split("\n")) {
            if (l.isBlank() || l.startsWith("#")) {
                continue;
            }
            int brace = l.indexOf('{');
            int space = l.lastIndexOf(' ');
            String name = brace < 0 ? l.substring(0, space) : l.substring(0, brace);
            Map<String, String> labels = new LinkedHashMap<>();
            if (brace >= 0) {
                String body = l.substring(brace + 1, l.lastIndexOf('}'));
                for (String kv : body.split("\",")) {
                    if (kv.isBlank()) {
                        continue;
                    }
                    int eq = kv.indexOf('=');
                    labels.put(kv.substring(0, eq), kv.substring(eq + 2).replaceAll("\"$", ""));
                }
            }
            out.add(new Line(name, labels, Double.parseDouble(l.substring(space + 1))));
        }
        return out;
    }

    /** The value of the sample {@code name} whose labels include {@code labels} (pairs), if scraped. */
    static OptionalDouble value(List<Line> lines, String name, String... labels) {
        return lines.stream()
                .filter(l -> l.name().equals(name))
                .filter(l -> {
                    for (int i = 0; i < labels.length; i += 2) {
                        if (!labels[i + 1].equals(l.labels().get(labels[i]))) {
                            return false;
                        }
                    }
                    return true;
                })
                .mapToDouble(Line::value)
                .findFirst();
    }

    private static double must(List<Line> lines, String name, String... labels) {
        OptionalDouble v = value(lines, name, labels);
        assertThat(v).as(name + " " + List.of(labels) + " scraped").isPresent();
        return v.getAsDouble();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void realObiPacketsRuleHitsAlertsAndSwapsAreScraped() throws Exception {
        Assumptions.assumeFalse(Boolean.getBoolean("openbox.obi.skip"), "-Dopenbox.obi.skip=true");
        Path bin = RealObiTest.obiBinary();
        Path in = dir.resolve("in.pcap");
        // fw: ssh to its alert and dropped (rule 0), the other two pass (rule 1) and ips alerts on each
        Pcap.write(
                in,
                List.of(
                        Pcap.Packet.tcp(22, "ssh"),
                        Pcap.Packet.tcp(80, "GET / HTTP/1.0\r\n\r\n"),
                        Pcap.Packet.udp(53, "dns")));
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
                        "--device-map",
                        "eth0=pcap:" + in + ",eth1=pcap:" + dir.resolve("out.pcap"))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("obi.log").toFile())
                .start();
        String o = "dpid";
        String d = String.valueOf(DPID);
        try {
            await().atMost(REAL_WAIT).until(() -> String.valueOf(
                            given().get("/api/obis/" + DPID).jsonPath().getString("obi.graphStatus"))
                    .startsWith("running"));
            // the trace has passed: the OBI's own figures say so, then the collector's do too
            await().atMost(REAL_WAIT)
                    .until(() -> given().get("/api/obis/" + DPID + "/stats")
                                    .jsonPath()
                                    .getLong("packets_in")
                            == 3);
            await().atMost(REAL_WAIT)
                    .until(() ->
                            value(scrape(), "openbox_rule_hits_total", "app", "fw", "block", "cls", o, d, "rule", "1")
                                            .orElse(0)
                                    == 2);
            List<Line> m = scrape();
            JsonPath stats = given().get("/api/obis/" + DPID + "/stats").jsonPath();

            // per OBI: GlobalStats, the same figures as the stats API
            assertThat(must(m, "openbox_obi_packets_total", o, d, "direction", "in"))
                    .isEqualTo(3);
            assertThat(must(m, "openbox_obi_packets_total", o, d, "direction", "out"))
                    .isEqualTo(stats.getDouble("packets_out"))
                    .isEqualTo(2);
            assertThat(must(m, "openbox_obi_packets_total", o, d, "direction", "dropped"))
                    .isEqualTo(stats.getDouble("packets_dropped"))
                    .isEqualTo(1);
            assertThat(must(m, "openbox_obi_bytes_total", o, d, "direction", "in"))
                    .isEqualTo(stats.getDouble("bytes_in"))
                    .isGreaterThan(3 * 42);
            assertThat(must(m, "openbox_obi_bytes_total", o, d, "direction", "out"))
                    .isEqualTo(stats.getDouble("bytes_out"))
                    .isPositive();
            assertThat(value(m, "openbox_obi_load", o, d)).isPresent();

            // per application and block, under the application's own names: fw's classifier
            assertThat(must(m, "openbox_rule_hits_total", "app", "fw", "block", "cls", o, d, "rule", "0"))
                    .isEqualTo(1);
            assertThat(must(m, "openbox_block_counter_total", "app", "fw", "block", "cls", o, d, "handle", "count"))
                    .isEqualTo(3);
            double ruleBytes = must(m, "openbox_rule_bytes_total", "app", "fw", "block", "cls", o, d, "rule", "0")
                    + must(m, "openbox_rule_bytes_total", "app", "fw", "block", "cls", o, d, "rule", "1");
            assertThat(ruleBytes).isEqualTo(stats.getDouble("bytes_in"));
            assertThat(must(
                            m,
                            "openbox_block_counter_total",
                            "app",
                            "fw",
                            "block",
                            "cls",
                            o,
                            d,
                            "handle",
                            "byte_count"))
                    .isEqualTo(ruleBytes);
            // the same value the application reads at this OBI
            assertThat(fw.context
                            .handles()
                            .read("cls", "count", DPID)
                            .get(5, TimeUnit.SECONDS)
                            .toString())
                    .isEqualTo("[1,2]");
            // only the applications on this OBI, only their own block names (no merged block's name)
            List<Line> perBlock = m.stream()
                    .filter(l -> d.equals(l.labels().get(o)) && l.labels().containsKey("app"))
                    .toList();
            assertThat(perBlock)
                    .isNotEmpty()
                    .extracting(l -> l.labels().get("app"))
                    .isSubsetOf("fw", "ips");
            assertThat(perBlock)
                    .extracting(l -> l.labels().get("block"))
                    .isSubsetOf("in", "cls", "ssh_alert", "drop", "out", "ips_alert");

            // alerts by application and severity, graph swaps, the collector's own outcomes
            await().atMost(REAL_WAIT)
                    .until(() -> value(scrape(), "openbox_alerts_total", "app", "ips", "severity", "2")
                                    .orElse(0)
                            >= 2);
            m = scrape();
            assertThat(must(m, "openbox_alerts_total", "app", "fw", "severity", "3"))
                    .isGreaterThanOrEqualTo(1);
            assertThat(must(m, "openbox_graph_swap_seconds_count", o, d, "outcome", "ok"))
                    .isGreaterThanOrEqualTo(1);
            assertThat(must(m, "openbox_graph_swap_seconds_sum", o, d, "outcome", "ok"))
                    .isPositive();
            assertThat(must(m, "openbox_metrics_collections_total", "outcome", "ok"))
                    .isPositive();

            // they came on its KeepAlives: the OBI holds the controller's subscription (the
            // merged blocks' counters, read there by their merged names) and reports it
            JsonPath params = given().get("/api/obis/" + DPID + "/parameters").jsonPath();
            assertThat(params.getLong("metrics_subscription.id")).isPositive();
            assertThat(params.getInt("metrics_subscription.interval")).isEqualTo(1);
            assertThat(params.getList("metrics_subscription.reads.block_id", String.class))
                    .isNotEmpty();
            assertThat(params.getList("metrics_subscription.reads.read_handles.flatten()", String.class))
                    .contains("count", "byte_count");
            assertThat(must(m, "openbox_metrics_paths_total", "path", "keepalive"))
                    .isPositive();
            double keepAlivePath = must(m, "openbox_metrics_paths_total", "path", "keepalive");
            await().atMost(REAL_WAIT)
                    .until(() -> value(scrape(), "openbox_metrics_paths_total", "path", "keepalive")
                                    .orElse(0)
                            >= keepAlivePath + 2); // once a second, on its own

            // a DOWN OBI is skipped, its last figures stay until its session is dropped
            double skipped = value(m, "openbox_metrics_collections_total", "outcome", "skipped")
                    .orElse(0);
            obi.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            await().atMost(REAL_WAIT).until(() -> "DOWN"
                    .equals(given().get("/api/obis/" + DPID).jsonPath().getString("obi.state")));
            await().atMost(REAL_WAIT)
                    .until(() -> value(scrape(), "openbox_metrics_collections_total", "outcome", "skipped")
                                    .orElse(0)
                            > skipped);
            assertThat(must(scrape(), "openbox_obi_packets_total", o, d, "direction", "in"))
                    .isEqualTo(3);
        } catch (AssertionError | Exception e) {
            throw new AssertionError(
                    e.getMessage() + "\n--- OBI output ---\n" + Files.readString(dir.resolve("obi.log")), e);
        } finally {
            obi.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    /**
     * An OBI that does not know the metrics_subscription parameter (it answers ILLEGAL_ARGUMENT,
     * as a spec OBI does) is offered it once and then collected by GlobalStats requests every
     * round: the same series at /actuator/prometheus, the same figures as /api/obis/{dpid}/stats.
     */
    @Test
    void anObiWithoutSubscriptionsIsCollectedByRequest() throws Exception {
        TestObi old = obi(133);
        old.onGlobalStats(() -> com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                .objectNode()
                .put("packets_in", 77)
                .put("bytes_in", 7700)
                .put("packets_out", 70)
                .put("bytes_out", 7000)
                .put("packets_dropped", 7)
                .put("current_load", 0.25)
                .put("uptime", 5)
                .put("cpus", 1));
        assertThat(old.hello().statusCode()).isEqualTo(200);
        keepAlive(old);
        old.await(GlobalStatsRequest.class, 4, Duration.ofSeconds(15));
        assertThat(old.received(SetParametersRequest.class).stream()
                        .filter(r -> r.parameters().has("metrics_subscription"))
                        .count())
                .as("subscriptions offered")
                .isEqualTo(1);
        String d = "133";
        // generous: the first collections after the context starts run cold on a loaded machine
        await().atMost(Duration.ofSeconds(60))
                .until(() -> value(scrape(), "openbox_obi_packets_total", "dpid", d, "direction", "in")
                                .orElse(0)
                        == 77);
        List<Line> m = scrape();
        JsonPath stats = given().get("/api/obis/133/stats").jsonPath();
        assertThat(must(m, "openbox_obi_packets_total", "dpid", d, "direction", "out"))
                .isEqualTo(stats.getDouble("packets_out"))
                .isEqualTo(70);
        assertThat(must(m, "openbox_obi_packets_total", "dpid", d, "direction", "dropped"))
                .isEqualTo(7);
        assertThat(must(m, "openbox_obi_bytes_total", "dpid", d, "direction", "in"))
                .isEqualTo(7700);
        assertThat(must(m, "openbox_obi_bytes_total", "dpid", d, "direction", "out"))
                .isEqualTo(7000);
        assertThat(must(m, "openbox_obi_load", "dpid", d)).isEqualTo(0.25);
        assertThat(must(m, "openbox_metrics_paths_total", "path", "request")).isPositive();
        assertThat(old.received(SetParametersRequest.class).stream()
                        .filter(r -> r.parameters().has("metrics_subscription"))
                        .count())
                .as("subscriptions offered after more rounds")
                .isEqualTo(1);
    }

    /**
     * An OBI that takes GlobalStatsRequests but never answers is asked again only after the
     * collection timeout (1.5 s), not every round (300 ms): one collection in flight per OBI.
     */
    @Test
    void anObiThatDoesNotAnswerIsNotAskedAgainUntilTheTimeout() throws Exception {
        TestObi slow = obi(132);
        slow.neverAnswer(m -> m instanceof GlobalStatsRequest);
        assertThat(slow.hello().statusCode()).isEqualTo(200);
        keepAlive(slow);
        slow.await(GlobalStatsRequest.class, 1, Duration.ofSeconds(10));
        long first = System.nanoTime();
        Thread.sleep(1000); // three rounds pass while the first request is unanswered
        assertThat(slow.received(GlobalStatsRequest.class)).hasSize(1);
        slow.await(GlobalStatsRequest.class, 2, Duration.ofSeconds(10));
        assertThat(Duration.ofNanos(System.nanoTime() - first)).isGreaterThanOrEqualTo(Duration.ofMillis(1400));
        assertThat(value(scrape(), "openbox_metrics_collections_total", "outcome", "failed"))
                .isPresent();
        assertThat(value(scrape(), "openbox_obi_packets_total", "dpid", "132", "direction", "in"))
                .isEmpty();
    }
}
