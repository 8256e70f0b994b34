package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.merge.gen.PacketGen;

/** Checks kept between merges: same results, new graphs checked anew, bounded. */
class CheckedGraphsTest {
    private static AppGraph fw(String app, String... matches) {
        return GraphMergerTest.classifierApp(app, matches);
    }

    private static MergeResult merge(GraphMerger m, AppGraph... apps) {
        return m.merge(List.of(apps), Composition.CHAIN, MergeOptions.defaults());
    }

    @Test
    void aMergeAfterOneApplicationChangedGivesWhatAFreshMergeGives() {
        CheckedGraphs kept = new CheckedGraphs(8);
        GraphMerger shared = new GraphMerger(TestSupport.CATALOGUE, kept);
        GraphMerger fresh = new GraphMerger(TestSupport.CATALOGUE);
        AppGraph lb = fw("lb", "{'eth_type':'0x800','ipv4_dst':'10.0.0.0/8'}", "{}");
        AppGraph fw1 = fw("fw", "{'eth_type':'0x800','ip_proto':6,'tcp_dst':80}", "{}");
        merge(shared, fw1, lb);
        assertEquals(2, kept.size());

        // the firewall reloaded with another rule: lb's check is taken from before, fw's made anew
        AppGraph fw2 = fw("fw", "{'eth_type':'0x800','ip_proto':17,'udp_dst':53}", "{}");
        MergeResult again = merge(shared, fw2, lb);
        MergeResult expected = merge(fresh, fw2, lb);
        assertEquals(expected.merged(), again.merged());
        assertEquals(expected.provenance().originsOf("c"), again.provenance().originsOf("c"));
        assertEquals(3, kept.size());
        TestSupport.assertEquivalent(List.of(fw2, lb), Composition.CHAIN, again, PacketGen.packets(3, 300));
    }

    @Test
    void aGraphIsFoundByIdentityAndApplicationSoABadNewOneIsStillRefused() {
        CheckedGraphs kept = new CheckedGraphs(8);
        GraphMerger shared = new GraphMerger(TestSupport.CATALOGUE, kept);
        AppGraph good = fw("fw", "{'eth_type':'0x800','ip_proto':6}", "{}");
        merge(shared, good);
        // the same graph under another application's name is checked for that application
        AppGraph renamed = new AppGraph("other", 0, good.graph());
        merge(shared, renamed);
        assertEquals(2, kept.size());
        // a new graph the catalogue refuses is checked (and refused), not taken for the good one
        AppGraph bad = new AppGraph(
                "fw",
                0,
                G.of("{'blocks':[" + G.block("FromDevice", "in", "{'devname':'eth0'}") + ","
                        + G.block("HeaderClassifier", "c", "{'match':[{'eth_type':'0x800','ip_proto':6},{}]}") + ","
                        + G.block("ToDevice", "out", "{'devname':'eth1','no_such_argument':1}") + "],'connectors':["
                        + G.conn("in", 0, "c") + "," + G.conn("c", 0, "out") + "," + G.conn("c", 1, "out") + "]}"));
        RuntimeException e = assertThrows(RuntimeException.class, () -> merge(shared, bad));
        assertTrue(e.getMessage().contains("no_such_argument"), e.getMessage());
        assertEquals(2, kept.size()); // a refused graph is not kept
    }

    @Test
    void retainDropsTheChecksOfReplacedGraphsAndKeepsTheOthers() {
        CheckedGraphs kept = new CheckedGraphs(8);
        GraphMerger shared = new GraphMerger(TestSupport.CATALOGUE, kept);
        AppGraph lb = fw("lb", "{'eth_type':'0x800','ipv4_dst':'10.0.0.0/8'}", "{}");
        AppGraph fw1 = fw("fw", "{'eth_type':'0x800','ip_proto':6,'tcp_dst':80}", "{}");
        AppGraph fw2 = fw("fw", "{'eth_type':'0x800','ip_proto':17,'udp_dst':53}", "{}");
        merge(shared, fw1, lb);
        merge(shared, fw2, lb);
        assertEquals(3, kept.size());

        // fw2 replaced fw1: only the graphs still placed keep their checks
        kept.retain(g -> g == fw2.graph() || g == lb.graph());
        assertEquals(2, kept.size());
        // and they are still found: merging the placed graphs again checks nothing new
        merge(shared, fw2, lb);
        assertEquals(2, kept.size());
        kept.retain(g -> false);
        assertEquals(0, kept.size());
    }

    @Test
    void keepsAtMostItsCapacity() {
        CheckedGraphs kept = new CheckedGraphs(2);
        GraphMerger shared = new GraphMerger(TestSupport.CATALOGUE, kept);
        for (int port = 1; port <= 5; port++) {
            merge(shared, fw("fw", "{'eth_type':'0x800','ip_proto':6,'tcp_dst':" + port + "}", "{}"));
            assertTrue(kept.size() <= 2, "kept " + kept.size());
        }
        assertEquals(2, kept.size());
        assertThrows(IllegalArgumentException.class, () -> new CheckedGraphs(0));
    }
}
