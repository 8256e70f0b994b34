package org.openbox.controller.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.openbox.api.GraphBuilder;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderClassifier;
import org.openbox.api.blocks.HeaderPayloadClassifier;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;
import org.openbox.api.match.PayloadPattern;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.MergeOptions;
import org.openbox.merge.Origin;
import org.openbox.protocol.graph.Graph;

/** Tracing an OBI's refusal of a merged graph back to the application it is due to. */
class FaultLocatorTest {

    private static final Catalogue CATALOGUE = Catalogue.load();
    private static final String BAD = "(ab)\\1x";

    private static Graph fw() {
        HeaderClassifier cls =
                new HeaderClassifier("cls").rule(Match.of().tcpDst(22)).rule(Match.of());
        return new GraphBuilder()
                .connect(new FromDevice("in", "eth0"), cls)
                .connect(cls, 0, new Discard("drop"))
                .connect(cls, 1, new ToDevice("out", "eth1"))
                .build()
                .toGraph();
    }

    private static Graph ips() {
        HeaderPayloadClassifier hpc = new HeaderPayloadClassifier("hpc")
                .rule(Match.of().tcpDst(80), PayloadPattern.literal("attack"))
                .rule(Match.of(), PayloadPattern.regex(BAD))
                .rule(Match.of());
        return new GraphBuilder()
                .connect(new FromDevice("in", "eth0"), hpc)
                .connect(hpc, 0, new Discard("bad"))
                .connect(hpc, 1, new Discard("bad2"))
                .connect(hpc, 2, new ToDevice("out", "eth1"))
                .build()
                .toGraph();
    }

    private static DeployedGraph merged() {
        List<AppPart> parts = List.of(new AppPart("fw", 200, fw()), new AppPart("ips", 100, ips()));
        Composed c = new MergingComposer(() -> CATALOGUE, MergeOptions.defaults()).compose(parts);
        return new DeployedGraph(1, c.graph(), c.origins(), List.of("fw", "ips"), c.report());
    }

    private static org.openbox.protocol.graph.Block appBlock(String app, String block) {
        return FaultLocator.block(app.equals("fw") ? fw() : ips(), block);
    }

    @Test
    void aPatternRefusedInAClassifierSharedByTwoApplicationsIsTheOneWhoseRuleHasIt() {
        DeployedGraph g = merged();
        org.openbox.protocol.graph.Block hpc = g.graph().blocks().stream()
                .filter(b -> b.type().equals("HeaderPayloadClassifier"))
                .findFirst()
                .orElseThrow();
        String block = hpc.name();
        // the merger combined both classifiers: the refused block is fw's as well as ips's
        assertThat(g.origins().originsOf(block)).extracting(Origin::app).contains("fw", "ips");
        int rule = 0;
        while (!hpc.config().get("match").get(rule).toString().contains("\\\\1x")) rule++;
        String message =
                "OBI 1: BAD_REQUEST/BAD_PAYLOAD_MATCH: block '" + block + "' (HeaderPayloadClassifier), config "
                        + "'match': rule " + rule + " payload_match 0 '" + BAD + "': Back-references are unsupported.";
        assertThat(FaultLocator.culprits(g, message, FaultLocatorTest::appBlock))
                .containsExactly("ips");
    }

    @Test
    void aBlockOfOneApplicationIsThatApplications() {
        DeployedGraph g = merged();
        String out = g.origins().all().entrySet().stream()
                .filter(e -> e.getValue().equals(List.of(new Origin("ips", "out"))))
                .map(java.util.Map.Entry::getKey)
                .findFirst()
                .orElseThrow();
        assertThat(FaultLocator.culprits(
                        g, "block '" + out + "' (ToDevice): no device eth1", FaultLocatorTest::appBlock))
                .containsExactly("ips");
    }

    @Test
    void aMessageNamingNoBlockBlamesNobodyUnlessTheGraphIsOneApplications() {
        DeployedGraph g = merged();
        assertThat(FaultLocator.culprits(g, "the graph has a cycle", FaultLocatorTest::appBlock))
                .isEmpty();
        assertThat(FaultLocator.culprits(g, "block 'no-such' (Discard): x", FaultLocatorTest::appBlock))
                .isEmpty();
        DeployedGraph one = new DeployedGraph(1, fw(), FailSafeGraphs.originsOf("fw", fw()), List.of("fw"), "");
        assertThat(FaultLocator.culprits(one, "out of memory", FaultLocatorTest::appBlock))
                .isEqualTo(Set.of("fw"));
        assertThat(FaultLocator.culprits(one, null, FaultLocatorTest::appBlock)).isEqualTo(Set.of("fw"));
    }
}
