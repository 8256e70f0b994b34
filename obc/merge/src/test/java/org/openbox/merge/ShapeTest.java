package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.merge.gen.ExamplePackets;
import org.openbox.merge.gen.PacketGen;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Graph;

/**
 * The shape of merged graphs: a classifier reached from many outputs is combined on all
 * of them or on none (and the next application's tree is shared, not copied per exit),
 * and a combined classifier mixing header-only and payload rules is split into a header
 * stage and a payload stage. Behaviour is checked against the unmerged chain every time.
 */
class ShapeTest {
    private final GraphMerger merger = new GraphMerger(TestSupport.CATALOGUE);

    /** A firewall whose n allow rules (one port each) all lead to 'out', then a drop-all-else. */
    static AppGraph firewall(int n) {
        StringBuilder match = new StringBuilder(), conns = new StringBuilder(G.conn("in", 0, "acl"));
        for (int i = 0; i < n; i++) {
            match.append(i == 0 ? "" : ",")
                    .append("{'eth_type':'0x800','ip_proto':6,'tcp_dst':")
                    .append(20 + i)
                    .append("}");
            conns.append(",").append(G.conn("acl", i, "out"));
        }
        return new AppGraph(
                "fw",
                0,
                G.of("{'blocks':[" + G.block("FromDevice", "in", "{'devname':'eth0'}") + ","
                        + G.block("HeaderClassifier", "acl", "{'match':[" + match + "]}") + ","
                        + G.block("ToDevice", "out", "{'devname':'eth1'}") + "],'connectors':[" + conns + "]}"));
    }

    /** An IPS: k payload rules into an Alert and a drop, the rest passes. */
    static AppGraph ips(int k) {
        StringBuilder pats = new StringBuilder(), conns = new StringBuilder(G.conn("in", 0, "sigs"));
        for (int i = 0; i < k; i++) {
            pats.append(i == 0 ? "" : ",").append("'attack").append(i).append("'");
            conns.append(",").append(G.conn("sigs", i, "alert"));
        }
        conns.append(",").append(G.conn("sigs", k, "out")).append(",").append(G.conn("alert", 0, "drop"));
        String regex = "{'pattern':[" + pats + ",'.*'],'payload_only':true}";
        return new AppGraph(
                "ips",
                0,
                G.of("{'blocks':[" + G.block("FromDevice", "in", "{'devname':'eth0'}") + ","
                        + G.block("RegexClassifier", "sigs", regex) + ","
                        + G.block("Alert", "alert", "{'alerts':[{'message':'attack','severity':3}]}") + ","
                        + G.block("Discard", "drop", "{}") + "," + G.block("ToDevice", "out", "{'devname':'eth1'}")
                        + "],'connectors':[" + conns + "]}"));
    }

    static long count(Graph g, String type) {
        return g.blocks().stream().filter(b -> b.type().equals(type)).count();
    }

    @Test
    void aClassifierBehindManyOutputsIsCombinedEverywhereOrNowhere() {
        List<AppGraph> apps = List.of(firewall(6), ips(3));
        // 6 outputs x (4 IPS rules + fallback) = 36 rules: over 20, so nowhere
        MergeResult r = merger.merge(apps, Composition.CHAIN, new MergeOptions(20));
        assertTrue(r.report().combined().isEmpty(), r.report().summary());
        assertEquals(1, r.report().notCombined().size(), r.report().summary());
        assertTrue(
                r.report().notCombined().get(0).contains("on 6 outputs"),
                r.report().summary());
        // the IPS is written once, shared by all the firewall's outputs
        assertEquals(
                1, count(r.merged(), "RegexClassifier"), r.merged().toJson().toString());
        assertEquals(1, count(r.merged(), "HeaderClassifier"));
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, PacketGen.packets(3, 400));
        // within the bound: combined on every output, no IPS classifier left behind
        MergeResult all = merger.merge(apps, Composition.CHAIN, new MergeOptions(100, true, false));
        assertTrue(all.report().notCombined().isEmpty(), all.report().summary());
        assertEquals(
                0, count(all.merged(), "RegexClassifier"), all.merged().toJson().toString());
        assertEquals(1, count(all.merged(), "HeaderPayloadClassifier"));
        TestSupport.assertEquivalent(apps, Composition.CHAIN, all, PacketGen.packets(4, 400));
    }

    @Test
    void mixedCombinedClassifierIsSplitIntoHeaderAndPayloadStages() throws IOException {
        List<AppGraph> apps = ExamplesTest.apps(ExamplesTest.files("four-nf-chain"));
        MergeResult split = merger.merge(apps, Composition.CHAIN, MergeOptions.defaults());
        MergeResult whole =
                merger.merge(apps, Composition.CHAIN, new MergeOptions(MergeOptions.DEFAULT_MAX_RULES, true, false));
        assertEquals(1, count(whole.merged(), "HeaderPayloadClassifier"));
        assertEquals(0, count(whole.merged(), "HeaderClassifier"));
        Graph g = split.merged();
        // header stage (fed by the input) -> one RegexMatcher (the web cache's GET regex) ->
        // a header classifier for each answer; no HeaderPayloadClassifier left
        assertEquals(0, count(g, "HeaderPayloadClassifier"), g.toJson().toString());
        assertEquals(1, count(g, "RegexMatcher"));
        assertEquals(3, count(g, "HeaderClassifier"));
        String header = g.connectors().stream()
                .filter(c -> c.src().equals("1-gateway-firewall.in"))
                .findFirst()
                .orElseThrow()
                .dst();
        Block matcher = g.blocks().stream()
                .filter(b -> b.type().equals("RegexMatcher"))
                .findFirst()
                .orElseThrow();
        assertTrue(g.connectors().stream()
                .filter(c -> c.dst().equals(matcher.name()))
                .allMatch(c -> c.src().equals(header)));
        int headerRules = g.blocks().stream()
                .filter(b -> b.name().equals(header))
                .findFirst()
                .orElseThrow()
                .config()
                .get("match")
                .size();
        int wholeRules = whole.merged().blocks().stream()
                .filter(b -> b.type().equals("HeaderPayloadClassifier"))
                .findFirst()
                .orElseThrow()
                .config()
                .get("match")
                .size();
        assertTrue(headerRules <= wholeRules, "header stage " + headerRules + " rules, combined " + wholeRules);
        assertTrue(
                split.report().notes().stream().anyMatch(s -> s.contains("split into a header stage")),
                split.report().summary());
        TestSupport.assertEquivalent(apps, Composition.CHAIN, split, ExamplePackets.packets(21, 3000));
        TestSupport.assertEquivalent(apps, Composition.CHAIN, whole, ExamplePackets.packets(21, 3000));
    }
}
