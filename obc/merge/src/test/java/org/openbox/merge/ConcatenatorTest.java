package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.openbox.merge.gen.ExamplePackets;
import org.openbox.merge.gen.GraphGen;
import org.openbox.merge.gen.PacketGen;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * The naive chain: same outcomes as running the applications one after the other, and
 * nothing merged (every original non-joined block is there once, unchanged).
 */
class ConcatenatorTest {
    private final Concatenator concat = new Concatenator(TestSupport.INFO);

    @Test
    void fourNfChainKeepsEveryBlockAndBehavesLikeTheSequence() throws IOException {
        List<AppGraph> apps = ExamplesTest.apps(ExamplesTest.files("four-nf-chain"));
        MergeResult r = concat.concat(apps);
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, ExamplePackets.packets(11, 2000));
        Graph g = r.merged();
        // one input terminal (the first app's) and one output terminal (the last app's) stay
        assertEquals(List.of("1-gateway-firewall.in"), names(g, "FromDevice"));
        assertEquals(List.of("4-l3-load-balancer.out"), names(g, "ToDevice"));
        // every other original block is kept once, with its config untouched
        int original = apps.stream().mapToInt(a -> a.graph().blocks().size()).sum();
        assertEquals(original - 2 * (apps.size() - 1), g.blocks().size());
        for (AppGraph a : apps) {
            for (Block b : a.graph().blocks()) {
                Block got = g.blocks().stream()
                        .filter(x -> x.name().equals(a.app() + "." + b.name()))
                        .findFirst()
                        .orElse(null);
                if (got == null) continue; // a joined terminal
                assertEquals(b.type(), got.type());
                assertEquals(b.config(), got.config());
            }
        }
        assertTrue(r.report().combined().isEmpty());
        assertEquals(r.report().rulesBefore(), r.report().rulesAfter());
        // the gateway firewall's allow outputs now lead straight into the web cache classifier
        Set<String> intoCache = g.connectors().stream()
                .filter(c -> c.dst().equals("2-web-cache.cached_get"))
                .map(c -> c.src() + "[" + c.srcPort() + "]")
                .collect(Collectors.toSet());
        assertEquals(Set.of("1-gateway-firewall.acl[2]", "1-gateway-firewall.acl[3]"), intoCache);
        assertEquals(
                List.of(new Origin("2-web-cache", "cached_get")), r.provenance().originsOf("2-web-cache.cached_get"));
        assertEquals(
                List.of(1), r.provenance().mergedRulesOf("2-web-cache", "cached_get", 1, "2-web-cache.cached_get"));
    }

    @Test
    void anInputTerminalThatFeedsNothingTurnsTheJoinIntoADrop() {
        Graph a = Graph.fromJson(
                GraphJson.of(
                        """
                {"blocks":[{"type":"FromDevice","name":"in","config":{"devname":"eth0"}},
                           {"type":"ToDevice","name":"out","config":{"devname":"eth1"}}],
                 "connectors":[{"src":"in","src_port":0,"dst":"out","dst_port":0}]}"""));
        Graph b = Graph.fromJson(
                GraphJson.of(
                        """
                {"blocks":[{"type":"FromDevice","name":"in","config":{"devname":"eth0"}}],"connectors":[]}"""));
        MergeResult r = concat.concat(List.of(new AppGraph("a", 0, a), new AppGraph("b", 0, b)));
        assertEquals(
                List.of("a.in"), r.merged().blocks().stream().map(Block::name).toList());
        assertTrue(r.merged().connectors().isEmpty());
    }

    @Test
    void severalInputsAreJoinedByDevname() {
        Graph a = Graph.fromJson(
                GraphJson.of(
                        """
                {"blocks":[{"type":"FromDevice","name":"in","config":{"devname":"eth0"}},
                           {"type":"HeaderClassifier","name":"c","config":{"match":[{"eth_type":"0x0800"},{}]}},
                           {"type":"ToDevice","name":"v4","config":{"devname":"eth1"}},
                           {"type":"ToDevice","name":"other","config":{"devname":"eth9"}}],
                 "connectors":[{"src":"in","src_port":0,"dst":"c","dst_port":0},
                               {"src":"c","src_port":0,"dst":"v4","dst_port":0},
                               {"src":"c","src_port":1,"dst":"other","dst_port":0}]}"""));
        Graph b = Graph.fromJson(
                GraphJson.of(
                        """
                {"blocks":[{"type":"FromDevice","name":"in1","config":{"devname":"eth1"}},
                           {"type":"FromDevice","name":"in2","config":{"devname":"eth2"}},
                           {"type":"DecIpTtl","name":"ttl","config":{}},
                           {"type":"ToDevice","name":"out","config":{"devname":"eth3"}}],
                 "connectors":[{"src":"in1","src_port":0,"dst":"ttl","dst_port":0},
                               {"src":"in2","src_port":0,"dst":"out","dst_port":0},
                               {"src":"ttl","src_port":0,"dst":"out","dst_port":0}]}"""));
        MergeResult r = concat.concat(List.of(new AppGraph("a", 0, a), new AppGraph("b", 0, b)));
        List<Connector> cs = r.merged().connectors();
        assertTrue(cs.contains(new Connector("a.c", 0, "b.ttl", 0)), cs.toString());
        assertTrue(cs.contains(new Connector("a.c", 1, "a.other", 0)), cs.toString()); // no eth9 input: stays an exit
        assertTrue(names(r.merged(), "FromDevice").contains("b.in2")); // unjoined input stays
        assertFalse(names(r.merged(), "FromDevice").contains("b.in1"));
    }

    @Test
    void duplicateApplicationNamesAreRefused() {
        Graph a = GraphGen.graph(List.of(1, 2, 3), "a", "eth0");
        MergeException e = assertThrows(
                MergeException.class, () -> concat.concat(List.of(new AppGraph("x", 0, a), new AppGraph("x", 0, a))));
        assertTrue(e.getMessage().contains("'x'"), e.getMessage());
    }

    @Property(tries = 1000)
    void chainOfThreeEqualsSequence(
            @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 999) Integer> a,
            @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 999) Integer> b,
            @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 999) Integer> c,
            @ForAll boolean twoInputs,
            @ForAll long seed) {
        List<AppGraph> apps = List.of(
                new AppGraph("a", 0, GraphGen.graph(a, "a", "eth0")),
                new AppGraph(
                        "b", 5, twoInputs ? GraphGen.graph(b, "b", "eth1", "eth2") : GraphGen.graph(b, "b", "eth0")),
                new AppGraph("c", 0, GraphGen.graph(c, "c", "eth0")));
        MergeResult r = concat.concat(apps);
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, PacketGen.packets(seed, 30));
    }

    private static List<String> names(Graph g, String type) {
        return g.blocks().stream()
                .filter(b -> b.type().equals(type))
                .map(Block::name)
                .toList();
    }

    /** Parses a JSON text block. */
    static final class GraphJson {
        static com.fasterxml.jackson.databind.JsonNode of(String s) {
            try {
                return new com.fasterxml.jackson.databind.ObjectMapper().readTree(s);
            } catch (IOException e) {
                throw new IllegalArgumentException(e);
            }
        }
    }
}
