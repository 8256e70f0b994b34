package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.merge.gen.ClassBench;
import org.openbox.merge.gen.PacketGen;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Graph;

/**
 * Classifiers whose product would be larger than the two apart stay in sequence and share
 * one classification pass: the first names the second in its {@code fuse} key. Checked on
 * the shared ClassBench firewall (4,560 rules) split into two chained firewalls, on a
 * firewall chained into an IPS-like header + payload classifier, and on small firewalls.
 */
class FusionTest {
    private final GraphMerger merger = new GraphMerger(TestSupport.CATALOGUE);

    private static List<AppGraph> splitFirewall(int from, int mid, int to) throws IOException {
        List<List<ObjectNode>> rules = ClassBench.rules("fw-4560.classbench");
        return List.of(
                new AppGraph("fw1", 1, ClassBench.firewall(rules.subList(from, mid), 7)),
                new AppGraph("fw2", 0, ClassBench.firewall(rules.subList(mid, to), 5)));
    }

    private static Block block(Graph g, String name) {
        return g.blocks().stream()
                .filter(b -> b.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static List<String> fuse(Block b) {
        List<String> out = new ArrayList<>();
        var f = b.config().get("fuse");
        if (f != null) f.forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void classBenchFirewallSplitInTwoIsFusedNotMultiplied() throws IOException {
        List<AppGraph> apps = splitFirewall(0, 2280, 4560);
        MergeResult r = merger.merge(apps, Composition.CHAIN, MergeOptions.defaults());
        MergeReport rep = r.report();
        assertTrue(rep.combined().isEmpty(), rep.summary());
        assertEquals(1, rep.fused().size(), rep.summary());
        assertTrue(rep.fused().get(0).contains("no product"), rep.summary());
        assertTrue(rep.notCombined().stream().noneMatch(s -> s.contains("rule bound")), rep.summary());
        // no product: the rules add up (the merge only drops rules no packet can reach)
        assertTrue(rep.rulesAfter() <= rep.rulesBefore() && rep.rulesAfter() > rep.rulesBefore() - 100, rep.summary());
        List<String> c1 = r.provenance().mergedBlocksOf("fw1", "rules");
        List<String> c2 = r.provenance().mergedBlocksOf("fw2", "rules");
        assertEquals(1, c1.size());
        assertEquals(1, c2.size());
        assertEquals(List.of(c2.get(0)), fuse(block(r.merged(), c1.get(0))));
        // per-rule handles answer in each application's own rule numbers: with no product each
        // merged rule is the application's own rule (only unreachable rules are dropped)
        for (int a = 0; a < 2; a++) {
            String app = a == 0 ? "fw1" : "fw2";
            var own = block(apps.get(a).graph(), "rules").config().get("match");
            var merged = block(r.merged(), (a == 0 ? c1 : c2).get(0)).config().get("match");
            int last = -1, mapped = 0;
            for (int k = 0; k < own.size(); k++) {
                List<Integer> m = r.provenance().mergedRulesOf(app, "rules", k, (a == 0 ? c1 : c2).get(0));
                assertTrue(m.size() <= 1, app + " rule " + k + " -> " + m);
                if (m.isEmpty()) continue;
                assertTrue(m.get(0) > last, app + " rule " + k + " -> " + m);
                assertEquals(
                        org.openbox.protocol.match.HeaderMatchParser.parse(own.get(k)),
                        org.openbox.protocol.match.HeaderMatchParser.parse(merged.get(m.get(0))),
                        app + " rule " + k);
                last = m.get(0);
                mapped++;
            }
            assertEquals(merged.size(), mapped, app);
            assertEquals(List.of(0), r.provenance().mergedRulesOf(app, "rules", 0, (a == 0 ? c1 : c2).get(0)));
        }
        List<byte[]> packets = new ArrayList<>(ClassBench.packets("fw-4560.trace", 1500));
        packets.addAll(PacketGen.packets(8, 200));
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, packets);
    }

    @Test
    void classBenchFirewallsMergeQuickly() throws IOException {
        List<List<ObjectNode>> rules = ClassBench.rules("fw-4560.classbench");
        List<AppGraph> split = splitFirewall(0, 2280, 4560);
        List<AppGraph> full = List.of(
                new AppGraph("fw1", 1, ClassBench.firewall(rules, 7)),
                new AppGraph("fw2", 0, ClassBench.firewall(rules, 5)));
        for (List<AppGraph> apps : List.of(split, full)) {
            long best = Long.MAX_VALUE;
            MergeResult r = null;
            for (int i = 0; i < 20; i++) {
                long t0 = System.nanoTime();
                r = merger.merge(apps, Composition.CHAIN, MergeOptions.defaults());
                best = Math.min(best, System.nanoTime() - t0);
            }
            System.out.printf(
                    "FW + FW, %d + %d rules -> %d rules: best merge %.1f ms%n",
                    r.report().rulesBefore() / 2,
                    r.report().rulesBefore() / 2,
                    r.report().rulesAfter(),
                    best / 1e6);
            assertEquals(1, r.report().fused().size(), r.report().summary());
            // generous for a shared machine: deciding costs a bounded number of rule pairs
            assertTrue(best < 1_000_000_000L, "merge took " + best / 1e6 + " ms");
        }
    }

    @Test
    void twoSmallFirewallsMergeWithoutRefusal() throws IOException {
        List<AppGraph> apps = splitFirewall(1000, 1200, 1400);
        MergeResult r = merger.merge(apps, Composition.CHAIN, MergeOptions.defaults());
        MergeReport rep = r.report();
        assertTrue(rep.notCombined().stream().noneMatch(s -> s.contains("rule bound")), rep.summary());
        assertFalse(rep.combined().isEmpty() && rep.fused().isEmpty(), "neither a product nor fused: " + rep.summary());
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, ClassBench.packets("fw-4560.trace", 800));
        // the old worst-case bound (200 x 200 > a bound of 1000) no longer refuses either
        MergeResult bounded = merger.merge(apps, Composition.CHAIN, new MergeOptions(1000));
        assertFalse(
                bounded.report().fused().isEmpty()
                        && bounded.report().combined().isEmpty(),
                bounded.report().summary());
    }

    @Test
    void firewallThenIpsFusesTheHeaderParts() throws IOException {
        List<List<ObjectNode>> rules = ClassBench.rules("fw-4560.classbench");
        AppGraph fw = new AppGraph("fw", 1, ClassBench.firewall(rules.subList(0, 1000), 0));
        AppGraph ips = ips(60);
        MergeResult r = merger.merge(List.of(fw, ips), Composition.CHAIN, MergeOptions.defaults());
        assertTrue(r.report().combined().isEmpty(), r.report().summary());
        String c1 = r.provenance().mergedBlocksOf("fw", "rules").get(0);
        String sigs = r.provenance().mergedBlocksOf("ips", "sigs").get(0);
        assertEquals("HeaderPayloadClassifier", block(r.merged(), sigs).type());
        assertEquals(List.of(sigs), fuse(block(r.merged(), c1)));
        List<byte[]> packets = new ArrayList<>(ClassBench.packets("fw-4560.trace", 500));
        packets.addAll(PacketGen.packets(9, 300));
        TestSupport.assertEquivalent(List.of(fw, ips), Composition.CHAIN, r, packets);
    }

    @Test
    void withoutFusionNoFuseKeyIsWritten() throws IOException {
        List<AppGraph> apps = splitFirewall(1000, 1200, 1400);
        MergeResult r = merger.merge(apps, Composition.CHAIN, new MergeOptions(100_000, true, true, false));
        assertTrue(r.report().fused().isEmpty());
        assertTrue(r.merged().blocks().stream()
                .noneMatch(b -> b.config() != null && b.config().has("fuse")));
        assertFalse(
                r.report().combined().isEmpty(),
                "the product-only merge multiplies: " + r.report().summary());
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, ClassBench.packets("fw-4560.trace", 300));
    }

    /** An IPS: n web signatures (TCP port 80 and a payload regex) into an Alert then a drop; the rest passes. */
    static AppGraph ips(int n) {
        StringBuilder match = new StringBuilder(), conns = new StringBuilder(G.conn("in", 0, "sigs"));
        for (int i = 0; i < n; i++) {
            match.append(i == 0 ? "" : ",")
                    .append("{'header_match':{'eth_type':'0x800','ip_proto':6,'tcp_dst':")
                    .append(i % 3 == 0 ? "'[80:90]'" : "80")
                    .append("},'payload_match':[{'pattern':'")
                    .append(i % 2 == 0 ? "ab" : "c")
                    .append("{")
                    .append(1 + i % 4)
                    .append("}x")
                    .append(i)
                    .append("','is_regex':true}]}");
            conns.append(",").append(G.conn("sigs", i, "alert"));
        }
        match.append(",{'header_match':{}}");
        conns.append(",").append(G.conn("sigs", n, "out")).append(",").append(G.conn("alert", 0, "drop"));
        return new AppGraph(
                "ips",
                0,
                G.of("{'blocks':[" + G.block("FromDevice", "in", "{'devname':'eth0'}") + ","
                        + G.block("HeaderPayloadClassifier", "sigs", "{'match':[" + match + "]}") + ","
                        + G.block("Alert", "alert", "{'alerts':[{'message':'web attack','severity':3}]}") + ","
                        + G.block("Discard", "drop", "{}") + "," + G.block("ToDevice", "out", "{'devname':'eth1'}")
                        + "],'connectors':[" + conns + "]}"));
    }
}
