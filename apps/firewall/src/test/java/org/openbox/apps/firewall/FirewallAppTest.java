package org.openbox.apps.firewall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.AlertRule;
import org.openbox.api.AppSettings;
import org.openbox.api.Application;
import org.openbox.api.Location;
import org.openbox.api.Priority;
import org.openbox.api.ProcessingGraph;
import org.openbox.api.Statement;
import org.openbox.api.event.AlertEvent;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;

class FirewallAppTest {

    private static FirewallConfig config(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return FirewallConfig.from(AppSettings.of(p));
    }

    private static Policy policy(String... lines) {
        return new FirewallRuleParser().parse(List.of(lines));
    }

    /** The block fed by output {@code port} of {@code src}. */
    static Block target(ProcessingGraph g, String src, int port) {
        Connector c = g.connectors().stream()
                .filter(k -> k.src().equals(src) && k.srcPort() == port)
                .findFirst()
                .orElseThrow(() -> new AssertionError("output " + port + " of " + src + " is not connected"));
        return g.block(c.dst()).orElseThrow();
    }

    @Test
    void isFoundByServiceLoaderWithHighPriority() {
        Application app = ServiceLoader.load(Application.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(a -> a.name().equals("firewall"))
                .findFirst()
                .orElseThrow();
        assertTrue(app instanceof FirewallApp);
        assertEquals(Priority.HIGH, app.priority());
    }

    @Test
    void alertBlocksNameTheirRuleLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fw.rules");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "# comment",
                        "drop proto tcp dport 23",
                        "alert proto tcp dport 22 msg \"ssh\"",
                        "default allow"));
        FirewallApp app = new FirewallApp(config("rules.file", file.toString()));
        ProcessingGraph g = app.statements().get(0).graph();
        String block = target(g, FirewallGraph.CLASSIFIER, 1).name();
        assertEquals(FirewallGraph.ALERT_PREFIX + "1", block);
        AlertRule rule = app.alertRule(block).orElseThrow();
        assertEquals(3, rule.id());
        assertEquals(0, rule.rev());
        assertEquals("ssh", rule.message());
        assertTrue(rule.origin().endsWith("fw.rules:3"), rule.origin());
        assertTrue(app.alertRule(FirewallGraph.ALERT_PREFIX + "0").isEmpty(), "rule 0 drops: no alert block");
        assertTrue(app.alertRule(FirewallGraph.ALERT_PREFIX + "7").isEmpty());
        assertTrue(app.alertRule(FirewallGraph.ALERT_PREFIX + "x").isEmpty());
        assertTrue(app.alertRule(FirewallGraph.CLASSIFIER).isEmpty());
    }

    @Test
    void sampleRulesGiveOneRowPerHeaderMatchAndADefaultRow() {
        FirewallConfig cfg = FirewallConfig.defaults();
        Policy policy = cfg.policy();
        List<Statement> statements = new FirewallApp(cfg).statements();
        assertEquals(1, statements.size());
        assertEquals(Location.network(), statements.get(0).location());
        ProcessingGraph g = statements.get(0).graph();
        Block classifier = g.block(FirewallGraph.CLASSIFIER).orElseThrow();
        int matches = policy.rules().stream().mapToInt(r -> r.matches().size()).sum();
        JsonNode rows = classifier.config().get("match");
        assertEquals(matches + 1, rows.size());
        assertEquals(0, rows.get(rows.size() - 1).size(), "the default row is the empty match");
        assertEquals("in", g.block("in").orElseThrow().config().get("devname").asText());
        assertEquals("out", g.block("out").orElseThrow().config().get("devname").asText());
        // the sample policy ends with "default drop"
        assertEquals(
                "Discard", target(g, FirewallGraph.CLASSIFIER, rows.size() - 1).type());
        assertEquals(FirewallGraph.CLASSIFIER, target(g, "in", 0).name());
    }

    @Test
    void rowsFollowRuleOrderAndLeadToTheRuleAction() {
        Policy p = policy(
                "drop src 10.66.0.0/16", "alert dport 53 msg \"dns\"", "allow proto tcp dport 80", "default allow");
        FirewallGraph fg = FirewallGraph.build(p, FirewallConfig.defaults());
        assertEquals(List.of(List.of(0), List.of(1, 2, 3), List.of(4)), fg.rowsOfRule());
        assertEquals(6, fg.rows());
        ProcessingGraph g = fg.graph();
        JsonNode rows = g.block(FirewallGraph.CLASSIFIER).orElseThrow().config().get("match");
        for (FirewallRule r : p.rules()) {
            List<Integer> ruleRows = fg.rowsOfRule().get(r.index());
            for (int k = 0; k < ruleRows.size(); k++) {
                JsonNode row = rows.get(ruleRows.get(k));
                r.matches()
                        .get(k)
                        .forEach((f, v) -> assertEquals(v, row.get(f).asText(), "row " + row + " field " + f));
            }
        }
        assertEquals("Discard", target(g, FirewallGraph.CLASSIFIER, 0).type());
        assertEquals("alert-1", target(g, FirewallGraph.CLASSIFIER, 1).name());
        assertEquals("alert-1", target(g, FirewallGraph.CLASSIFIER, 3).name(), "rows of one rule share the branch");
        assertEquals("out", target(g, FirewallGraph.CLASSIFIER, 4).name());
        assertEquals("out", target(g, FirewallGraph.CLASSIFIER, 5).name(), "default allow");
    }

    @Test
    void alertRuleGetsItsOwnAlertBlockThatForwards() {
        Policy p = policy(
                "alert proto tcp dst 10.0.2.20 dport 22 msg \"ssh to the admin host\"",
                "allow proto icmp",
                "default drop");
        ProcessingGraph g =
                FirewallGraph.build(p, config("alert.severity", "4")).graph();
        Block alert = g.block("alert-0").orElseThrow();
        assertEquals("Alert", alert.type());
        JsonNode a = alert.config().get("alerts").get(0);
        assertEquals("ssh to the admin host", a.get("message").asText());
        assertEquals(4, a.get("severity").asInt());
        assertEquals("ToDevice", target(g, "alert-0", 0).type());
        assertEquals(
                1, g.blocks().stream().filter(b -> b.type().equals("ToDevice")).count(), "one shared output");
    }

    @Test
    void alertsAreCountedPerRuleBlockAndLogged() {
        FirewallApp app = new FirewallApp(FirewallConfig.defaults());
        app.onAlert(new AlertEvent(1, "alert-1", "ssh to the admin host", 3, null, Instant.EPOCH));
        app.onAlert(new AlertEvent(2, "alert-1", "ssh to the admin host", 3, null, Instant.EPOCH));
        app.onAlert(new AlertEvent(1, "alert-7", "other", 3, null, Instant.EPOCH));
        assertEquals(Map.of("alert-1", 2L, "alert-7", 1L), app.alertCounts());
        assertEquals(3, app.alertLines().size());
        assertTrue(
                app.alertLines().get(1).contains("dpid 2 alert-1"),
                app.alertLines().get(1));
    }

    @Test
    void classBenchSetBuildsAValidGraph() {
        Path data = Path.of(System.getProperty("openbox.data", "../../../shared/data"));
        FirewallConfig cfg =
                config("rules.file", data.resolve("fw-4560.classbench").toString(), "rules.format", "classbench");
        Policy policy = cfg.policy();
        FirewallGraph fg = FirewallGraph.build(policy, cfg);
        ProcessingGraph g = fg.graph();
        int matches = policy.rules().stream().mapToInt(r -> r.matches().size()).sum();
        assertEquals(4560, policy.rules().size());
        assertEquals(matches + 1, fg.rows());
        assertEquals(
                fg.rows(),
                g.block(FirewallGraph.CLASSIFIER)
                        .orElseThrow()
                        .config()
                        .get("match")
                        .size());
        // every ClassBench rule allows (classbench.action default); the default row drops
        for (int row = 0; row < fg.rows() - 1; row++) {
            assertEquals("out", target(g, FirewallGraph.CLASSIFIER, row).name());
        }
        assertEquals(
                "Discard", target(g, FirewallGraph.CLASSIFIER, fg.rows() - 1).type());
        System.out.printf(
                "fw-4560 firewall graph: %d rules -> %d classifier rows, %d blocks, %d connectors, %d bytes JSON%n",
                policy.rules().size(),
                fg.rows(),
                g.blocks().size(),
                g.connectors().size(),
                g.toJson().toString().length());
    }

    @Test
    void configKeysAreReadAndCheckedFromAFile(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("my.rules"), "drop proto udp\ndefault allow\n");
        Path file = dir.resolve("firewall.properties");
        Files.writeString(
                file,
                "location = segment:dmz\ndevice.in = eth0\ndevice.out = eth1\n"
                        + "rules.file = my.rules\ndefault.action = drop\n");
        FirewallConfig cfg = FirewallConfig.from(AppSettings.read(file));
        assertEquals(Location.segment("dmz"), cfg.location());
        assertEquals(dir.resolve("my.rules"), cfg.rulesFile(), "relative to the config file");
        Policy p = cfg.policy();
        assertEquals(Action.DROP, p.defaultAction(), "default.action overrides the file's default line");
        ProcessingGraph g = FirewallGraph.build(p, cfg).graph();
        assertEquals("eth0", g.block("in").orElseThrow().config().get("devname").asText());
        assertEquals("Discard", target(g, FirewallGraph.CLASSIFIER, 0).type());
        assertEquals("Discard", target(g, FirewallGraph.CLASSIFIER, 1).type());
        assertTrue(g.block("out").isEmpty(), "nothing is allowed, so there is no output device");

        IllegalArgumentException typo = assertThrows(IllegalArgumentException.class, () -> config("rules.fiel", "x"));
        assertTrue(typo.getMessage().contains("rules.fiel"), typo.getMessage());
        assertThrows(IllegalArgumentException.class, () -> config("rules.format", "iptables"));
        assertThrows(IllegalArgumentException.class, () -> config("alert.severity", "9"));
        assertThrows(IllegalArgumentException.class, () -> config("location", "rack:1"));
        assertEquals(Location.obi(0x2a), config("location", "obi:0x2a").location());
    }
}
