package org.openbox.controller.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.Origin;
import org.openbox.merge.Provenance;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

class FallbackComposerTest {

    private static final Catalogue CATALOGUE = Catalogue.load();

    private static final Graph G = new Graph(
            List.of(
                    new Block("FromDevice", "in", JsonNodeFactory.instance.objectNode()),
                    new Block("ToDevice", "out", JsonNodeFactory.instance.objectNode())),
            List.of(new Connector("in", 0, "out", 0)));

    @Test
    void failingMergeFallsBackToTheUnmergedChain() {
        GraphComposer failing = parts -> {
            throw new IllegalStateException("cannot merge");
        };
        Composed c = new FallbackComposer(failing, new ChainComposer(() -> CATALOGUE))
                .compose(List.of(new AppPart("a", 1, G)));
        assertThat(c.graph()).isEqualTo(G);
        assertThat(c.report()).contains("merge failed").contains("cannot merge");
        assertThat(c.origins().originsOf("in")).containsExactly(new Origin("a", "in"));
    }

    @Test
    void workingMergeIsUsed() {
        Composed merged = new Composed(G, Provenance.EMPTY, "merged");
        Composed c = new FallbackComposer(parts -> merged, new ChainComposer(() -> CATALOGUE))
                .compose(List.of(new AppPart("a", 1, G)));
        assertThat(c).isSameAs(merged);
    }
}
