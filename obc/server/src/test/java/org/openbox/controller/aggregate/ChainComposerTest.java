package org.openbox.controller.aggregate;

import org.openbox.merge.Origin;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

class ChainComposerTest {

    private static Block b(String type, String name) {
        return new Block(type, name, JsonNodeFactory.instance.objectNode());
    }

    private static final Graph A = new Graph(
            List.of(b("FromDevice", "in"), b("HeaderClassifier", "cls"), b("ToDevice", "out"), b("Discard", "drop")),
            List.of(new Connector("in", 0, "cls", 0), new Connector("cls", 0, "out", 0), new Connector("cls", 1, "drop", 0)));
    private static final Graph B = new Graph(
            List.of(b("FromDevice", "in"), b("Alert", "al"), b("ToDevice", "out")),
            List.of(new Connector("in", 0, "al", 0), new Connector("al", 0, "out", 0)));

    @Test
    void singleGraphKeepsItsNames() {
        Composed c = new ChainComposer().compose(List.of(new AppPart("a", 1, A)));
        assertThat(c.graph()).isEqualTo(A);
        assertThat(c.origins().originsOf("cls")).containsExactly(new Origin("a", "cls"));
        assertThat(c.origins().mergedRulesOf("a", "cls", 1, "cls")).containsExactly(1);
    }

    @Test
    void outputTerminalOfTheFirstLeadsIntoTheSecond() {
        Composed c = new ChainComposer().compose(List.of(new AppPart("a", 2, A), new AppPart("b", 1, B)));
        assertThat(c.graph().blocks()).extracting(Block::name)
                .containsExactly("a.in", "a.cls", "a.drop", "b.al", "b.out");
        assertThat(c.graph().connectors()).containsExactlyInAnyOrder(
                new Connector("a.in", 0, "a.cls", 0), new Connector("a.cls", 1, "a.drop", 0),
                new Connector("a.cls", 0, "b.al", 0), new Connector("b.al", 0, "b.out", 0));
        assertThat(c.origins().mergedBlocksOf("b", "al")).containsExactly("b.al");
        assertThat(c.origins().mergedBlocksOf("a", "out")).isEmpty();
        assertThat(c.origins().originsOf("a.out")).isEmpty();
        assertThat(c.origins().all()).containsOnlyKeys("a.in", "a.cls", "a.drop", "b.al", "b.out");
    }

    private static Block device(String type, String name, String devname) {
        return new Block(type, name, JsonNodeFactory.instance.objectNode().put("devname", devname));
    }

    @Test
    void replyThroughTheInputDeviceStaysAnExit() {
        // a cache answering clients through its input device "in", forwarding the rest by "out"
        Graph cache = new Graph(
                List.of(device("FromDevice", "rx", "in"), b("HeaderClassifier", "cls"), device("ToDevice", "back", "in"),
                        device("ToDevice", "fwd", "out")),
                List.of(new Connector("rx", 0, "cls", 0), new Connector("cls", 0, "back", 0), new Connector("cls", 1, "fwd", 0)));
        Composed c = new ChainComposer().compose(List.of(new AppPart("cache", 2, cache), new AppPart("b", 1, B)));
        assertThat(c.graph().blocks()).extracting(Block::name)
                .containsExactly("cache.rx", "cache.cls", "cache.back", "b.al", "b.out");
        assertThat(c.graph().connectors()).contains(
                new Connector("cache.cls", 0, "cache.back", 0), new Connector("cache.cls", 1, "b.al", 0));
    }
}
