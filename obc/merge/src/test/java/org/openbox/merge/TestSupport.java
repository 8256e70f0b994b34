package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.core.BlockInfo;
import org.openbox.merge.core.CatalogueBlockInfo;
import org.openbox.merge.interpret.Equivalence;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Graph;

/** Shared by the merge tests: the real catalogue and the equivalence assertion. */
public final class TestSupport {
    public static final Catalogue CATALOGUE = Catalogue.load();
    public static final BlockInfo INFO = new CatalogueBlockInfo(CATALOGUE);

    private TestSupport() {}

    /**
     * Every {@code fuse} key is on a HeaderClassifier and names at most 15 distinct
     * HeaderClassifier or HeaderPayloadClassifier blocks, each the first block after statics
     * only on some output of the fusing block. Returns the number of fusing blocks.
     */
    public static int assertFuseWellFormed(Graph g) {
        java.util.Map<String, Block> byName = new java.util.HashMap<>();
        for (Block b : g.blocks()) byName.put(b.name(), b);
        int fusing = 0;
        for (Block b : g.blocks()) {
            var fuse = b.config() == null ? null : b.config().get("fuse");
            if (fuse == null) continue;
            fusing++;
            org.junit.jupiter.api.Assertions.assertEquals("HeaderClassifier", b.type(), b.name());
            org.junit.jupiter.api.Assertions.assertTrue(fuse.size() >= 1 && fuse.size() <= 15, b.name() + ": " + fuse);
            java.util.Set<String> reached = new java.util.HashSet<>();
            for (var c : g.connectors()) {
                if (!c.src().equals(b.name())) continue;
                Block t = byName.get(c.dst());
                while (t.type().equals("Alert") || t.type().equals("Log")) {
                    String from = t.name();
                    t = g.connectors().stream()
                            .filter(x -> x.src().equals(from))
                            .findFirst()
                            .map(x -> byName.get(x.dst()))
                            .orElse(null);
                    if (t == null) break;
                }
                if (t != null) reached.add(t.name());
            }
            java.util.Set<String> names = new java.util.HashSet<>();
            for (var n : fuse) {
                org.junit.jupiter.api.Assertions.assertTrue(names.add(n.asText()), "named twice: " + n);
                Block t = byName.get(n.asText());
                org.junit.jupiter.api.Assertions.assertNotNull(t, "fuse names a missing block " + n);
                org.junit.jupiter.api.Assertions.assertTrue(
                        t.type().equals("HeaderClassifier") || t.type().equals("HeaderPayloadClassifier"), t.type());
                org.junit.jupiter.api.Assertions.assertTrue(
                        reached.contains(t.name()), b.name() + " does not reach " + t.name() + " through statics only");
            }
        }
        return fusing;
    }

    /** Every packet, at every merged input, has the same outcome as the unmerged composition. */
    public static void assertEquivalent(List<AppGraph> apps, Composition c, MergeResult r, List<byte[]> packets) {
        // the merged graph is a valid graph file: it round-trips and every block passes the catalogue
        Graph again = Graph.fromJson(r.merged().toJson());
        for (Block b : again.blocks()) CATALOGUE.validate(b);
        assertFuseWellFormed(r.merged());
        Equivalence eq = new Equivalence(apps, c, r, INFO);
        for (String in : eq.inputs()) {
            for (byte[] p : packets) {
                String why = eq.check(in, p);
                if (why != null) {
                    fail(why + "\nmerged graph: " + r.merged().toJson() + "\napps: "
                            + apps.stream()
                                    .map(a -> a.app() + "=" + a.graph().toJson())
                                    .toList()
                            + "\nreport:\n" + r.report().summary());
                }
            }
        }
    }
}
