package org.openbox.controller.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.AppGraph;
import org.openbox.merge.Concatenator;
import org.openbox.merge.MergeResult;
import org.openbox.merge.Origin;
import org.openbox.merge.core.CatalogueBlockInfo;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

class ChainComposerTest {

    private static final Catalogue CATALOGUE = Catalogue.load();
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ChainComposer composer = new ChainComposer(() -> CATALOGUE);

    private static ObjectNode json(String s) {
        try {
            return (ObjectNode) JSON.readTree(s);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static Block device(String type, String name, String devname) {
        return new Block(type, name, json("{\"devname\":\"" + devname + "\"}"));
    }

    /** in(eth0) -> cls: TCP to out(eth1), the rest to drop. */
    private static final Graph A = new Graph(
            List.of(
                    device("FromDevice", "in", "eth0"),
                    new Block(
                            "HeaderClassifier",
                            "cls",
                            json("{\"match\":[{\"eth_type\":\"0x0800\",\"ip_proto\":6},{}]}")),
                    device("ToDevice", "out", "eth1"),
                    new Block("Discard", "drop", json("{}"))),
            List.of(
                    new Connector("in", 0, "cls", 0),
                    new Connector("cls", 0, "out", 0),
                    new Connector("cls", 1, "drop", 0)));
    /** in(eth0) -> al -> out(eth1). */
    private static final Graph B = new Graph(
            List.of(
                    device("FromDevice", "in", "eth0"),
                    new Block("Alert", "al", json("{\"alerts\":[{\"message\":\"seen\",\"severity\":1}]}")),
                    device("ToDevice", "out", "eth1")),
            List.of(new Connector("in", 0, "al", 0), new Connector("al", 0, "out", 0)));

    @Test
    void singleGraphKeepsItsNamesAndRules() {
        Composed c = composer.compose(List.of(new AppPart("a", 1, A)));
        assertThat(c.graph()).isEqualTo(A);
        assertThat(c.origins().originsOf("cls")).containsExactly(new Origin("a", "cls"));
        assertThat(c.origins().mergedRulesOf("a", "cls", 1, "cls")).containsExactly(1);
        assertThat(c.origins().mergedRulesOf("b", "cls", 1, "cls")).isEmpty();
    }

    @Test
    void outputTerminalOfTheFirstLeadsIntoTheSecond() {
        Composed c = composer.compose(List.of(new AppPart("a", 2, A), new AppPart("b", 1, B)));
        assertThat(c.graph().blocks())
                .extracting(Block::name)
                .containsExactly("a.in", "a.cls", "a.drop", "b.al", "b.out");
        assertThat(c.graph().connectors())
                .containsExactlyInAnyOrder(
                        new Connector("a.in", 0, "a.cls", 0), new Connector("a.cls", 1, "a.drop", 0),
                        new Connector("a.cls", 0, "b.al", 0), new Connector("b.al", 0, "b.out", 0));
        assertThat(c.origins().mergedBlocksOf("b", "al")).containsExactly("b.al");
        assertThat(c.origins().mergedRulesOf("a", "cls", 0, "a.cls")).containsExactly(0);
        assertThat(c.origins().mergedBlocksOf("a", "out")).isEmpty();
        assertThat(c.origins().originsOf("a.out")).isEmpty();
        assertThat(c.origins().all()).containsOnlyKeys("a.in", "a.cls", "a.drop", "b.al", "b.out");
        assertThat(c.report()).contains("chain (unmerged): a -> b");
    }

    @Test
    void priorityOrdersTheChainAsTheConcatenationDoes() {
        Composed c = composer.compose(List.of(new AppPart("b", 1, B), new AppPart("a", 2, A)));
        MergeResult baseline = new Concatenator(new CatalogueBlockInfo(CATALOGUE))
                .concat(List.of(new AppGraph("b", 1, B), new AppGraph("a", 2, A)));
        assertThat(c.graph()).isEqualTo(baseline.merged());
        assertThat(c.report()).contains("a -> b");
    }

    @Test
    void replyThroughTheInputDeviceStaysAnExit() {
        // a cache answering clients through its input device "in", forwarding the rest by "out"
        Graph cache = new Graph(
                List.of(
                        device("FromDevice", "rx", "in"),
                        new Block(
                                "HeaderClassifier",
                                "cls",
                                json("{\"match\":[{\"eth_type\":\"0x0800\",\"ip_proto\":6},{}]}")),
                        device("ToDevice", "back", "in"),
                        device("ToDevice", "fwd", "out")),
                List.of(
                        new Connector("rx", 0, "cls", 0),
                        new Connector("cls", 0, "back", 0),
                        new Connector("cls", 1, "fwd", 0)));
        Composed c = composer.compose(List.of(new AppPart("cache", 2, cache), new AppPart("b", 1, B)));
        assertThat(c.graph().blocks())
                .extracting(Block::name)
                .containsExactly("cache.rx", "cache.cls", "cache.back", "b.al", "b.out");
        assertThat(c.graph().connectors())
                .contains(new Connector("cache.cls", 0, "cache.back", 0), new Connector("cache.cls", 1, "b.al", 0));
    }

    @Test
    void aGraphWithTwoInputsIsJoinedByDevice() {
        // two inputs: what left the first application by eth1 enters the second's eth1 input
        Graph two = new Graph(
                List.of(
                        device("FromDevice", "in0", "eth0"),
                        device("FromDevice", "in1", "eth1"),
                        new Block("Alert", "al", json("{\"alerts\":[{\"message\":\"from eth1\",\"severity\":1}]}")),
                        device("ToDevice", "out0", "eth0"),
                        device("ToDevice", "out1", "eth2")),
                List.of(
                        new Connector("in0", 0, "out0", 0),
                        new Connector("in1", 0, "al", 0),
                        new Connector("al", 0, "out1", 0)));
        Composed c = composer.compose(List.of(new AppPart("a", 2, A), new AppPart("t", 1, two)));
        assertThat(c.graph().connectors()).contains(new Connector("a.cls", 0, "t.al", 0));
        assertThat(c.graph().blocks())
                .extracting(Block::name)
                .doesNotContain("a.out", "t.in1")
                .contains("t.in0");
    }
}
