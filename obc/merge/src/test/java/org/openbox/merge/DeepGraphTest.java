package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/** Graphs deep or wide enough to exhaust a recursive walk: they merge, or fail with a MergeException. */
class DeepGraphTest {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private final GraphMerger merger = new GraphMerger(TestSupport.INFO);

    private static ObjectNode obj(String k, String v) {
        return F.objectNode().put(k, v);
    }

    /** in -> classifier (IPv4 | rest) -> n DecIpTtl blocks on the IPv4 output -> out; the rest -> out. */
    private static Graph longChain(int n) {
        List<Block> blocks = new ArrayList<>();
        List<Connector> conns = new ArrayList<>();
        blocks.add(new Block("FromDevice", "in", obj("devname", "eth0")));
        ObjectNode cfg = F.objectNode();
        cfg.putArray("match").add(obj("ETH_TYPE", "0x0800")).add(F.objectNode());
        blocks.add(new Block("HeaderClassifier", "c", cfg));
        conns.add(new Connector("in", 0, "c", 0));
        String prev = "c";
        for (int i = 0; i < n; i++) {
            blocks.add(new Block("DecIpTtl", "t" + i, F.objectNode()));
            conns.add(new Connector(prev, 0, "t" + i, 0));
            prev = "t" + i;
        }
        blocks.add(new Block("ToDevice", "out", obj("devname", "eth1")));
        conns.add(new Connector(prev, 0, "out", 0));
        conns.add(new Connector("c", 1, "out", 0));
        return new Graph(blocks, conns);
    }

    @Test
    void aChainOfAHundredThousandBlocksMerges() {
        int n = 100_000;
        AppGraph a = new AppGraph("a", 0, longChain(n));
        AppGraph b = new AppGraph("b", 0, longChain(n));
        MergeResult r = merger.merge(List.of(a, b), Composition.CHAIN, MergeOptions.defaults());
        // a's classifier combines with b's on both outputs, moving a's 100,000 blocks behind on the IPv4 one
        assertEquals(2, r.report().combined().size(), r.report().combined().toString());
        assertTrue(
                r.report().combined().get(0).contains("100000 block(s) moved behind"),
                r.report().combined().get(0));
        assertEquals(
                2L * n,
                r.merged().blocks().stream()
                        .filter(x -> x.type().equals("DecIpTtl"))
                        .count());
        assertEquals(
                1,
                r.merged().blocks().stream()
                        .filter(x -> x.type().equals("FromDevice"))
                        .count());
        MergeResult concat = new Concatenator(TestSupport.INFO).concat(List.of(a, b));
        assertEquals(
                2L * n,
                concat.merged().blocks().stream()
                        .filter(x -> x.type().equals("DecIpTtl"))
                        .count());
    }

    @Test
    void aGraphUnfoldingIntoTooManyCopiesIsRefused() {
        // 12 classifiers in a row, each with both outputs into the next: 2^12 paths to the end
        List<Block> blocks = new ArrayList<>();
        List<Connector> conns = new ArrayList<>();
        blocks.add(new Block("FromDevice", "in", obj("devname", "eth0")));
        String prev = "in";
        for (int i = 0; i < 12; i++) {
            ObjectNode cfg = F.objectNode();
            cfg.putArray("match").add(obj("ETH_TYPE", "0x0800")).add(F.objectNode());
            blocks.add(new Block("HeaderClassifier", "d" + i, cfg));
            conns.add(new Connector(prev, 0, "d" + i, 0));
            if (i > 0) conns.add(new Connector(prev, 1, "d" + i, 0));
            prev = "d" + i;
        }
        blocks.add(new Block("ToDevice", "out", obj("devname", "eth1")));
        conns.add(new Connector(prev, 0, "out", 0));
        conns.add(new Connector(prev, 1, "out", 0));
        AppGraph g = new AppGraph("wide", 0, new Graph(blocks, conns));
        TreeBuilder tb = new TreeBuilder(TestSupport.INFO, 4_000, null);
        MergeException e = assertThrows(MergeException.class, () -> tb.trees(tb.check(g), new ArrayList<>()));
        assertEquals(
                "wide: the graph unfolds into more than 4000 blocks (a block reached along several paths is copied"
                        + " once per path)",
                e.getMessage());
        // within the bound it unfolds: 1 + 1 + 2 + 4 + ... + 2^11 classifiers and 2^12 terminals
        TreeBuilder roomy = new TreeBuilder(TestSupport.INFO, 10_000, null);
        assertEquals(1, roomy.trees(roomy.check(g), new ArrayList<>()).size());
    }

    @Test
    void aDeeplyNestedHeaderMatchIsRefusedNamingTheBlock() {
        String deep = "[".repeat(2_000) + "10.0.0.1" + "]".repeat(2_000);
        ObjectNode cfg = F.objectNode();
        cfg.putArray("match").add(F.objectNode().put("ETH_TYPE", "0x0800").put("IPV4_SRC", deep));
        Graph g = new Graph(
                List.of(
                        new Block("FromDevice", "in", obj("devname", "eth0")),
                        new Block("HeaderClassifier", "acl", cfg),
                        new Block("ToDevice", "out", obj("devname", "eth1"))),
                List.of(new Connector("in", 0, "acl", 0), new Connector("acl", 0, "out", 0)));
        MergeException e = assertThrows(
                MergeException.class,
                () -> merger.merge(List.of(new AppGraph("x", 0, g)), Composition.CHAIN, MergeOptions.defaults()));
        assertEquals(
                "block 'acl' (HeaderClassifier): config argument match[0]: header match field IPV4_SRC: value nested"
                        + " deeper than 32 brackets",
                e.getMessage());
        // the same value nested 32 deep is a plain address
        cfg.withArray("match")
                .set(
                        0,
                        F.objectNode()
                                .put("ETH_TYPE", "0x0800")
                                .put("IPV4_SRC", "[".repeat(32) + "10.0.0.1" + "]".repeat(32)));
        MergeResult r = merger.merge(List.of(new AppGraph("x", 0, g)), Composition.CHAIN, MergeOptions.defaults());
        assertEquals(3, r.merged().blocks().size());
    }
}
