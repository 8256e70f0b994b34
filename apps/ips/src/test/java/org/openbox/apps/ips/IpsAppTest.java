package org.openbox.apps.ips;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
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
import org.openbox.api.ProcessingGraph;
import org.openbox.api.Statement;
import org.openbox.api.event.AlertEvent;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;

class IpsAppTest {

    private static final Path DATA = Path.of(System.getProperty("openbox.data", "../../../shared/data"));

    private static IpsConfig config(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return IpsConfig.from(AppSettings.of(p));
    }

    private static List<SnortRule> rules(String... lines) {
        return new SnortRuleParser(SnortVariables.defaults())
                .parse(List.of(lines))
                .rules();
    }

    static Block target(ProcessingGraph g, String src, int port) {
        Connector c = g.connectors().stream()
                .filter(k -> k.src().equals(src) && k.srcPort() == port)
                .findFirst()
                .orElseThrow(() -> new AssertionError("output " + port + " of " + src + " is not connected"));
        return g.block(c.dst()).orElseThrow();
    }

    @Test
    void isFoundByServiceLoader() {
        Application app = ServiceLoader.load(Application.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(a -> a.name().equals("ips"))
                .findFirst()
                .orElseThrow();
        assertTrue(app instanceof IpsApp);
        assertTrue(
                app.priority() < org.openbox.api.Priority.HIGH && app.priority() > org.openbox.api.Priority.MEDIUM,
                "after the firewall, before the web cache");
    }

    @Test
    void sampleRulesBuildAValidGraph() {
        IpsApp app = new IpsApp(IpsConfig.defaults());
        List<Statement> statements = app.statements();
        assertEquals(Location.network(), statements.get(0).location());
        ProcessingGraph g = statements.get(0).graph();
        List<SnortRule> run = app.rulesRun();
        assertEquals(6, run.size(), "the sample has six rules");
        assertTrue(app.skipped().isEmpty());
        JsonNode rows = g.block(IpsGraph.CLASSIFIER).orElseThrow().config().get("match");
        assertEquals(run.size() + 1, rows.size());
        for (int i = 0; i < run.size(); i++) {
            SnortRule r = run.get(i);
            Block alert = target(g, IpsGraph.CLASSIFIER, i);
            assertEquals("Alert", alert.type());
            assertEquals("sid-" + r.sid(), alert.name());
            assertEquals(r.patterns().size(), rows.get(i).get("payload_match").size());
            assertEquals(
                    r.patterns().get(0),
                    rows.get(i).get("payload_match").get(0).get("pattern").asText());
            assertEquals("ToDevice", target(g, alert.name(), 0).type());
        }
        JsonNode last = rows.get(rows.size() - 1);
        assertTrue(
                last.get("header_match").isEmpty() && last.get("payload_match").isEmpty(), last.toString());
        assertEquals("out", target(g, IpsGraph.CLASSIFIER, rows.size() - 1).name());
    }

    @Test
    void alertCarriesSidMessageAndSeverityFromPriority() {
        List<SnortRule> rs = rules(
                "alert tcp any any -> any 80 (msg:\"WEB-CGI phf access\"; content:\"/phf\"; priority:1; sid:1000001;)",
                "alert tcp any any -> any 80 (msg:\"no priority\"; content:\"x\"; sid:1000002;)");
        ProcessingGraph g =
                IpsGraph.build(rs, config("alert.attach_packet", "false")).graph();
        JsonNode a = g.block("sid-1000001").orElseThrow().config().get("alerts").get(0);
        assertEquals("[sid:1000001] WEB-CGI phf access", a.get("message").asText());
        assertEquals(4, a.get("severity").asInt());
        assertEquals(
                IpsGraph.DEFAULT_SEVERITY,
                g.block("sid-1000002")
                        .orElseThrow()
                        .config()
                        .get("alerts")
                        .get(0)
                        .get("severity")
                        .asInt());
        assertFalse(g.block("sid-1000002").orElseThrow().config().has("attach_packet"));
        assertEquals(1000001, IpsGraph.sidOf(a.get("message").asText()));
    }

    @Test
    void dropRulesDiscardInlineAndForwardInIdsMode() {
        List<SnortRule> rs = rules(
                "drop tcp any any -> any 80 (msg:\"bad\"; content:\"evil\"; sid:5;)",
                "sdrop tcp any any -> any 80 (msg:\"quiet\"; content:\"hush\"; sid:6;)",
                "pass tcp 10.0.0.1 any <> any 80 (msg:\"trusted\"; content:\"ok\"; sid:7;)",
                "log tcp any any -> any 80 (msg:\"note\"; content:\"note\"; sid:8;)");
        IpsGraph inline = IpsGraph.build(rs, IpsConfig.defaults());
        ProcessingGraph g = inline.graph();
        assertEquals(List.of(List.of(0), List.of(1), List.of(2, 3), List.of(4)), inline.rowsOfRule());
        assertEquals("Discard", target(g, "sid-5", 0).type());
        assertEquals("Discard", target(g, IpsGraph.CLASSIFIER, 1).type(), "sdrop drops without an alert");
        assertEquals("out", target(g, IpsGraph.CLASSIFIER, 2).name(), "pass rules forward");
        assertEquals("out", target(g, IpsGraph.CLASSIFIER, 3).name());
        assertEquals("Log", target(g, IpsGraph.CLASSIFIER, 4).type());
        assertEquals(
                "[sid:8] note",
                target(g, IpsGraph.CLASSIFIER, 4).config().get("message").asText());

        ProcessingGraph ids = IpsGraph.build(rs, config("inline", "false")).graph();
        assertEquals("ToDevice", target(ids, "sid-5", 0).type());
        assertEquals("out", target(ids, IpsGraph.CLASSIFIER, 1).name());
        assertTrue(ids.block(IpsGraph.DROP).isEmpty());
    }

    @Test
    void duplicateSidsGetDistinctBlocks() {
        List<SnortRule> rs = rules(
                "alert tcp any any -> any 80 (msg:\"a\"; content:\"a\"; sid:9;)",
                "alert tcp any any -> any 80 (msg:\"b\"; content:\"b\"; sid:9;)");
        ProcessingGraph g = IpsGraph.build(rs, IpsConfig.defaults()).graph();
        assertEquals("sid-9", target(g, IpsGraph.CLASSIFIER, 0).name());
        assertEquals("sid-9-line-2", target(g, IpsGraph.CLASSIFIER, 1).name());
    }

    @Test
    void alertBlocksNameTheirSnortRule(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.rules");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "pass tcp any any -> any 80 (msg:\"p\"; content:\"p\"; sid:9; rev:7;)",
                        "alert tcp any any -> any 80 (msg:\"first\"; content:\"a\"; sid:9; rev:3;)",
                        "alert tcp any any -> any 80 (msg:\"second\"; content:\"b\"; sid:9; rev:4;)"));
        IpsApp app = new IpsApp(config("rules.file", file.toString()));
        app.statements();
        AlertRule first = app.alertRule("sid-9").orElseThrow();
        assertEquals(9, first.id());
        assertEquals(3, first.rev());
        assertEquals("first", first.message());
        assertTrue(first.origin().endsWith("r.rules:2"), first.origin());
        AlertRule second = app.alertRule("sid-9-line-3").orElseThrow();
        assertEquals(4, second.rev());
        assertEquals("second", second.message());
        assertTrue(app.alertRule("sid-10").isEmpty());
        assertTrue(app.alertRule(IpsGraph.CLASSIFIER).isEmpty());
        assertTrue(app.alertRule("sid-99999999999999999999").isEmpty());
    }

    @Test
    void skippedRulesAreReportedNotDropped(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.rules");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "alert tcp any any -> any 80 (msg:\"a\"; content:\"x\"; byte_test:4,>,1,0; sid:11;)",
                        "alert tcp any any -> any 80 (msg:\"ok\"; content:\"x\"; sid:12;)"));
        IpsApp app = new IpsApp(config("rules.file", file.toString()));
        app.statements();
        assertEquals(1, app.rulesRun().size());
        assertEquals(1, app.skipped().size());
        assertEquals(11, app.skipped().get(0).sid());
        assertTrue(app.skipped().get(0).reason().contains("byte_test"));
        assertTrue(app.statements().get(0).graph().block("sid-11").isEmpty());
    }

    @Test
    void snortWebRulesBuildAValidGraph() throws Exception {
        IpsConfig cfg = config(
                "rules.file",
                DATA.resolve("snort-web.rules").toString(),
                "variables.file",
                DATA.resolve("snort-vars.conf").toString());
        IpsApp app = new IpsApp(cfg);
        ProcessingGraph g = app.statements().get(0).graph();
        long ruleLines = Files.readAllLines(DATA.resolve("snort-web.rules"), StandardCharsets.ISO_8859_1).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#"))
                .count();
        assertEquals(ruleLines, app.rulesRun().size() + app.skipped().size(), "every rule is run or reported");
        assertEquals(1030, app.rulesRun().size());
        assertEquals(28, app.skipped().size());
        int rows = app.rulesRun().stream().mapToInt(r -> r.headers().size()).sum() + 1;
        assertEquals(
                rows,
                g.block(IpsGraph.CLASSIFIER).orElseThrow().config().get("match").size());
        for (SkippedRule s : app.skipped()) {
            assertFalse(s.reason().isBlank());
            assertTrue(g.block("sid-" + s.sid()).isEmpty(), "skipped sid " + s.sid() + " has no block");
        }
        System.out.printf(
                "snort-web IPS graph: %d rules -> %d classifier rows, %d blocks, %d connectors; %d skipped%n",
                app.rulesRun().size(),
                rows,
                g.blocks().size(),
                g.connectors().size(),
                app.skipped().size());
    }

    @Test
    void alertsAreCountedBySidFromTheMessage() {
        IpsApp app = new IpsApp(IpsConfig.defaults());
        app.onAlert(new AlertEvent(
                1, "sid-1000004", "[sid:1000004] WEB-PHP SQL injection UNION SELECT", 3, null, Instant.EPOCH));
        app.onAlert(new AlertEvent(
                2, "sid-1000004", "[sid:1000004] WEB-PHP SQL injection UNION SELECT", 3, null, Instant.EPOCH));
        app.onAlert(new AlertEvent(1, "x", "no sid here", 3, null, Instant.EPOCH));
        assertEquals(Map.of(1000004L, 2L, -1L, 1L), app.alertsBySid());
    }

    @Test
    void configErrorsNameTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config("inline", "maybe"));
        assertTrue(e.getMessage().contains("inline"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> config("rule.file", "x"));
        IpsConfig c = config("device.in", "eth0", "device.out", "eth1", "location", "segment:web");
        assertEquals("eth0", c.inDevice());
        assertEquals(Location.segment("web"), c.location());
    }
}
