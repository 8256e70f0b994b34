package org.openbox.apps.firewall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FirewallRuleParserTest {
    private final FirewallRuleParser parser = new FirewallRuleParser();

    @Test
    void rulesBecomeHeaderMatchesWithPrerequisites() {
        Policy p = parser.parse(List.of(
                "# comment",
                "drop proto tcp src 10.66.0.0/16 dport 22,1000:2000 msg \"no ssh\"",
                "allow proto icmp",
                "default drop"));
        assertEquals(Action.DROP, p.defaultAction());
        assertEquals(2, p.rules().size());
        FirewallRule r = p.rules().get(0);
        assertEquals(Action.DROP, r.action());
        assertEquals("no ssh", r.message());
        assertEquals(2, r.line());
        assertEquals(
                List.of(Map.of(
                        "ETH_TYPE",
                        "0x0800",
                        "IP_PROTO",
                        "6",
                        "IPV4_SRC",
                        "10.66.0.0/16",
                        "TCP_DST",
                        "[22,[1000:2000]]")),
                r.matches());
        assertEquals(
                List.of(Map.of("ETH_TYPE", "0x0800", "IP_PROTO", "1")),
                p.rules().get(1).matches());
    }

    @Test
    void anyProtocolWithPortsCoversTcpUdpAndPortlessProtocols() {
        FirewallRule r = parser.parse(List.of("alert dport 53")).rules().get(0);
        assertEquals(3, r.matches().size());
        assertEquals("53", r.matches().get(0).get("TCP_DST"));
        assertEquals("53", r.matches().get(1).get("UDP_DST"));
        assertEquals("[[0:5],[7:16],[18:255]]", r.matches().get(2).get("IP_PROTO"));
    }

    @Test
    void errorsNameTheLineAndTheWord() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> parser.parse(List.of("allow", "allow dst 10.0.0.300x")));
        assertTrue(e.getMessage().startsWith("rules:2: bad address '10.0.0.300x'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> parser.parse(List.of("permit")));
        assertThrows(IllegalArgumentException.class, () -> parser.parse(List.of("allow dport 70000")));
        assertThrows(IllegalArgumentException.class, () -> parser.parse(List.of("allow dport 9:1")));
        assertThrows(IllegalArgumentException.class, () -> parser.parse(List.of("default alert")));
    }

    @Test
    void classBenchSetLoadsWithOneRulePerLine() throws Exception {
        Path data = Path.of(System.getProperty("openbox.data", "../../../shared/data"));
        List<String> lines = Files.readAllLines(data.resolve("fw-4560.classbench"));
        Policy p = new ClassBenchParser().parse(lines, Action.ALLOW, Action.DROP);
        assertEquals(4560, p.rules().size());
        FirewallRule first = p.rules().get(0);
        assertEquals(
                Map.of(
                        "ETH_TYPE",
                        "0x0800",
                        "IP_PROTO",
                        "17",
                        "IPV4_SRC",
                        "136.202.44.112/28",
                        "IPV4_DST",
                        "139.95.173.112/28",
                        "UDP_SRC",
                        "53",
                        "UDP_DST",
                        "53"),
                first.matches().get(0));
        FirewallRule last = p.rules().get(4559);
        assertEquals(List.of(Map.of("ETH_TYPE", "0x0800")), last.matches(), "the last rule is a full wildcard");
    }
}
