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

    /** Every packet, at every merged input, has the same outcome as the unmerged composition. */
    public static void assertEquivalent(List<AppGraph> apps, Composition c, MergeResult r, List<byte[]> packets) {
        // the merged graph is a valid graph file: it round-trips and every block passes the catalogue
        Graph again = Graph.fromJson(r.merged().toJson());
        for (Block b : again.blocks()) CATALOGUE.validate(b);
        Equivalence eq = new Equivalence(apps, c, r, INFO);
        for (String in : eq.inputs()) {
            for (byte[] p : packets) {
                String why = eq.check(in, p);
                if (why != null) {
                    fail(why + "\nmerged graph: " + r.merged().toJson() + "\napps: "
                            + apps.stream().map(a -> a.app() + "=" + a.graph().toJson()).toList()
                            + "\nreport:\n" + r.report().summary());
                }
            }
        }
    }
}
