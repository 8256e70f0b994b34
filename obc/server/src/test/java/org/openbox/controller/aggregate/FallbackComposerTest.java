package org.openbox.controller.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
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
    void bothComposersLearnWhichGraphsArePlaced() {
        List<String> told = new ArrayList<>();
        class Recording implements GraphComposer {
            private final String name;

            Recording(String name) {
                this.name = name;
            }

            @Override
            public Composed compose(List<AppPart> parts) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void retain(Predicate<Graph> placed) {
                told.add(name + ":" + placed.test(G));
            }
        }
        new FallbackComposer(new Recording("primary"), new Recording("fallback")).retain(g -> g == G);
        assertThat(told).containsExactly("primary:true", "fallback:true");
    }

    @Test
    void workingMergeIsUsed() {
        Composed merged = new Composed(G, Provenance.EMPTY, "merged");
        Composed c = new FallbackComposer(parts -> merged, new ChainComposer(() -> CATALOGUE))
                .compose(List.of(new AppPart("a", 1, G)));
        assertThat(c).isSameAs(merged);
    }
}
