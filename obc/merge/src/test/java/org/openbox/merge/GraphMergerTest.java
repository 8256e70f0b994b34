package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.merge.gen.PacketGen;
import org.openbox.protocol.graph.Block;

class GraphMergerTest {
    private final GraphMerger merger = new GraphMerger(TestSupport.CATALOGUE);

    /** in -> HeaderClassifier(matches...) -> each output to 'out' (ToDevice eth1) */
    static AppGraph classifierApp(String app, String... matches) {
        StringBuilder conns = new StringBuilder(G.conn("in", 0, "c"));
        for (int i = 0; i < matches.length; i++) conns.append(",").append(G.conn("c", i, "out"));
        return new AppGraph(
                app,
                0,
                G.of("{'blocks':[" + G.block("FromDevice", "in", "{'devname':'eth0'}") + ","
                        + G.block("HeaderClassifier", "c", "{'match':[" + String.join(",", matches) + "]}") + ","
                        + G.block("ToDevice", "out", "{'devname':'eth1'}") + "],'connectors':[" + conns + "]}"));
    }

    @Test
    void chainCombinesTwoClassifiersWithPerRuleProvenance() {
        AppGraph a = classifierApp(
                "fw", "{'eth_type':'0x800','ip_proto':6,'tcp_dst':80}", "{'eth_type':'0x800','ip_proto':17}");
        AppGraph b = classifierApp("lb", "{'eth_type':'0x800','ipv4_dst':'10.0.0.0/8'}", "{}");
        MergeResult r = merger.merge(List.of(a, b), Composition.CHAIN, MergeOptions.defaults());
        List<Block> classifiers = r.merged().blocks().stream()
                .filter(x -> x.type().equals("HeaderClassifier"))
                .toList();
        assertEquals(1, classifiers.size(), r.merged().toJson().toString());
        String c = classifiers.get(0).name();
        assertEquals(
                List.of(new Origin("fw", "c"), new Origin("lb", "c")),
                r.provenance().originsOf(c));
        // fw rule 0 becomes merged rules 0 (AND lb rule 0) and 1 (AND lb's catch-all); fw rule 1 likewise 2 and 3
        assertEquals(List.of(0, 1), r.provenance().mergedRulesOf("fw", "c", 0, c));
        assertEquals(List.of(2, 3), r.provenance().mergedRulesOf("fw", "c", 1, c));
        assertEquals(List.of(0, 2), r.provenance().mergedRulesOf("lb", "c", 0, c));
        assertEquals(List.of(1, 3), r.provenance().mergedRulesOf("lb", "c", 1, c));
        assertEquals(List.of(c), r.provenance().mergedBlocksOf("lb", "c"));
        assertEquals(1, r.report().combined().size() - 1, r.report().summary()); // fw x lb at each of 2 outputs
        TestSupport.assertEquivalent(List.of(a, b), Composition.CHAIN, r, PacketGen.packets(1, 500));
    }

    /** A reply through the application's own input device leaves there; the rest goes on. */
    @Test
    void replyThroughTheInputDeviceIsNotChained() {
        // a cache: web requests are answered back through eth0, where they came in; the rest goes on by eth1
        AppGraph cache = new AppGraph(
                "cache",
                10,
                G.of("{'blocks':[" + G.block("FromDevice", "in", "{'devname':'eth0'}")
                        + ","
                        + G.block(
                                "HeaderClassifier",
                                "c",
                                "{'match':[{'eth_type':'0x800','ip_proto':6,'tcp_dst':80},{}]}")
                        + "," + G.block("ToDevice", "back", "{'devname':'eth0'}") + ","
                        + G.block("ToDevice", "out", "{'devname':'eth1'}")
                        + "],'connectors':[" + G.conn("in", 0, "c") + "," + G.conn("c", 0, "back") + ","
                        + G.conn("c", 1, "out") + "]}"));
        AppGraph lb = classifierApp("lb", "{'eth_type':'0x800','ipv4_dst':'10.0.0.0/8'}", "{}");
        List<MergeResult> results = List.of(
                merger.merge(List.of(cache, lb), Composition.CHAIN, MergeOptions.defaults()),
                new Concatenator(TestSupport.INFO).concat(List.of(cache, lb)));
        for (MergeResult r : results) {
            String json = r.merged().toJson().toString();
            List<String> devices = r.merged().blocks().stream()
                    .filter(b -> b.type().equals("ToDevice"))
                    .map(b -> b.config().get("devname").asText())
                    .sorted()
                    .toList();
            // the reply keeps its own exit; only the forward exit was replaced by the load balancer
            assertEquals(List.of("eth0", "eth1"), devices, json);
            assertTrue(
                    r.provenance()
                            .originsOf(r.merged().blocks().stream()
                                    .filter(b -> b.type().equals("ToDevice")
                                            && b.config()
                                                    .get("devname")
                                                    .asText()
                                                    .equals("eth0"))
                                    .findFirst()
                                    .orElseThrow()
                                    .name())
                            .contains(new Origin("cache", "back")),
                    json);
            TestSupport.assertEquivalent(List.of(cache, lb), Composition.CHAIN, r, PacketGen.packets(5, 500));
        }
    }

    @Test
    void outputIsDeterministic() {
        AppGraph a =
                classifierApp("fw", "{'eth_type':'0x800','ip_proto':6,'tcp_dst':'[1:1024]'}", "{'eth_type':'0x806'}");
        AppGraph b = classifierApp("lb", "{'eth_type':'0x800','ipv4_src':'10.0.0.1'}", "{'eth_type':'0x800'}");
        String first = merger.merge(List.of(a, b), Composition.CHAIN, MergeOptions.defaults())
                .merged()
                .toJson()
                .toString();
        for (int i = 0; i < 5; i++) {
            assertEquals(
                    first,
                    new GraphMerger(TestSupport.CATALOGUE)
                            .merge(List.of(a, b), Composition.CHAIN, MergeOptions.defaults())
                            .merged()
                            .toJson()
                            .toString());
        }
    }

    @Test
    void ruleBoundKeepsClassifiersInSequenceAndSaysSo() {
        AppGraph a = classifierApp("fw", "{'eth_type':'0x800','ip_proto':6,'tcp_dst':80}", "{'eth_type':'0x800'}");
        AppGraph b = classifierApp(
                "lb", "{'eth_type':'0x800','ipv4_dst':'10.0.0.1'}", "{'eth_type':'0x800','ipv4_dst':'10.0.0.2'}");
        MergeResult r = merger.merge(List.of(a, b), Composition.CHAIN, new MergeOptions(3));
        assertEquals(
                2,
                r.merged().blocks().stream()
                        .filter(x -> x.type().equals("HeaderClassifier"))
                        .count());
        assertTrue(
                r.report().notCombined().stream().anyMatch(s -> s.contains("rule bound")),
                r.report().summary());
        TestSupport.assertEquivalent(List.of(a, b), Composition.CHAIN, r, PacketGen.packets(2, 500));
    }

    @Test
    void inexpressibleIntersectionKeepsClassifiersInSequence() {
        AppGraph a = classifierApp("fw", "{'eth_type':'0x800','ip_proto':6,'tcp_dst':'0x50%0xff'}");
        AppGraph b = classifierApp("lb", "{'eth_type':'0x800','ip_proto':6,'tcp_dst':'[0:0x7fff]'}");
        MergeResult r = merger.merge(List.of(a, b), Composition.CHAIN, MergeOptions.defaults());
        assertEquals(
                2,
                r.merged().blocks().stream()
                        .filter(x -> x.type().equals("HeaderClassifier"))
                        .count());
        assertTrue(
                r.report().notCombined().stream().anyMatch(s -> s.contains("non-prefix")),
                r.report().summary());
        TestSupport.assertEquivalent(List.of(a, b), Composition.CHAIN, r, PacketGen.packets(3, 500));
    }

    @Test
    void alwaysMatchingClassifierIsFoldedAndIdenticalSubtreesShared() {
        AppGraph a = classifierApp("fw", "{}");
        AppGraph b = classifierApp("lb", "{'eth_type':'0x800'}", "{'eth_type':'0x806'}");
        MergeResult r = merger.merge(List.of(a, b), Composition.CHAIN, MergeOptions.defaults());
        // fw's {} classifier disappears; lb's two outputs share one ToDevice
        assertEquals(
                List.of("FromDevice", "HeaderClassifier", "ToDevice"),
                r.merged().blocks().stream().map(Block::type).toList());
        assertEquals(3, r.merged().connectors().size());
        TestSupport.assertEquivalent(List.of(a, b), Composition.CHAIN, r, PacketGen.packets(4, 300));
    }

    @Test
    void alertsBetweenClassifiersAreDuplicatedIntoEachBranchAndKeepTheirOrigin() {
        AppGraph a = new AppGraph(
                "ids",
                0,
                G.of("{'blocks':[" + G.block("FromDevice", "in", "{'devname':'eth0'}") + ","
                        + G.block("HeaderClassifier", "c", "{'match':[{'eth_type':'0x800'}]}") + ","
                        + G.block("Alert", "seen", "{'alerts':[{'message':'ipv4 seen'}]}") + ","
                        + G.block("ToDevice", "out", "{'devname':'eth1'}") + "],'connectors':["
                        + G.conn("in", 0, "c") + "," + G.conn("c", 0, "seen") + "," + G.conn("seen", 0, "out") + "]}"));
        AppGraph b = classifierApp("fw", "{'eth_type':'0x800','ip_proto':6}", "{'eth_type':'0x800','ip_proto':17}");
        MergeResult r = merger.merge(List.of(a, b), Composition.CHAIN, MergeOptions.defaults());
        List<String> alerts = r.provenance().mergedBlocksOf("ids", "seen");
        assertTrue(alerts.size() >= 1);
        for (String al : alerts)
            assertEquals(List.of(new Origin("ids", "seen")), r.provenance().originsOf(al));
        // ICMP matches ids but not fw: the alert still fires, then the packet is dropped
        TestSupport.assertEquivalent(List.of(a, b), Composition.CHAIN, r, PacketGen.packets(5, 500));
    }

    @Test
    void badGraphsAreRejectedNamingTheBlock() {
        String in = G.block("FromDevice", "in", "{'devname':'eth0'}");
        MergeException unknown = assertThrows(
                MergeException.class,
                () -> merger.merge(
                        List.of(new AppGraph(
                                "x",
                                0,
                                G.of("{'blocks':[" + in + "," + G.block("Teleporter", "tp", "{}") + "],'connectors':["
                                        + G.conn("in", 0, "tp") + "]}"))),
                        Composition.CHAIN,
                        MergeOptions.defaults()));
        assertTrue(unknown.getMessage().contains("'tp'"), unknown.getMessage());
        MergeException cycle = assertThrows(
                MergeException.class,
                () -> merger.merge(
                        List.of(new AppGraph(
                                "x",
                                0,
                                G.of("{'blocks':[" + in + "," + G.block("Queue", "q1", "{'capacity':10}") + ","
                                        + G.block("Queue", "q2", "{'capacity':10}") + "],'connectors':["
                                        + G.conn("in", 0, "q1") + "," + G.conn("q1", 0, "q2") + ","
                                        + G.conn("q2", 0, "q1") + "]}"))),
                        Composition.CHAIN,
                        MergeOptions.defaults()));
        assertTrue(cycle.getMessage().contains("cycle") && cycle.getMessage().contains("'q1'"), cycle.getMessage());
        MergeException port = assertThrows(
                MergeException.class,
                () -> merger.merge(
                        List.of(new AppGraph(
                                "x",
                                0,
                                G.of("{'blocks':[" + in + "," + G.block("Discard", "d", "{}") + "],'connectors':["
                                        + G.conn("in", 3, "d") + "]}"))),
                        Composition.CHAIN,
                        MergeOptions.defaults()));
        assertTrue(port.getMessage().contains("'in'") && port.getMessage().contains("output"), port.getMessage());
        AppGraph badRegex = new AppGraph(
                "x",
                0,
                G.of("{'blocks':[" + in + "," + G.block("RegexClassifier", "re", "{'pattern':['(ab']}")
                        + "],'connectors':[" + G.conn("in", 0, "re") + "]}"));
        MergeException rule = assertThrows(
                MergeException.class,
                () -> merger.merge(List.of(badRegex), Composition.CHAIN, MergeOptions.defaults()));
        assertTrue(rule.getMessage().contains("'re'"), rule.getMessage());
    }
}
