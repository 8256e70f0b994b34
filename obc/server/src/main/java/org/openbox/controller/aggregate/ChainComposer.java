package org.openbox.controller.aggregate;

import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.AppGraph;
import org.openbox.merge.Concatenator;
import org.openbox.merge.MergeResult;
import org.openbox.merge.Provenance;
import org.openbox.merge.core.CatalogueBlockInfo;
import org.openbox.protocol.graph.Block;

/**
 * Composition without optimisation: the application graphs joined as a service chain by
 * the merge module's {@link Concatenator}, the baseline the merge is checked against (the
 * same packets take the same paths through the same blocks as through one OBI per
 * application), so a graph that falls back to it behaves as the merged one would have.
 * One application's graph is deployed as it is, block names unchanged.
 */
public final class ChainComposer implements GraphComposer {

    private final Supplier<Catalogue> catalogue;

    public ChainComposer(Supplier<Catalogue> catalogue) {
        this.catalogue = catalogue;
    }

    @Override
    public Composed compose(List<AppPart> parts) {
        if (parts.size() == 1) {
            AppPart only = parts.get(0);
            Provenance origins = Provenance.ofApplication(
                    only.app(), only.graph().blocks().stream().map(Block::name).toList());
            return new Composed(only.graph(), origins, "chain (unmerged): " + only.app() + " alone;");
        }
        List<AppGraph> graphs = parts.stream()
                .map(p -> new AppGraph(p.app(), p.priority(), p.graph()))
                .toList();
        MergeResult r = new Concatenator(new CatalogueBlockInfo(catalogue.get())).concat(graphs);
        List<String> order = graphs.stream()
                .sorted(Comparator.comparingInt(AppGraph::priority).reversed())
                .map(AppGraph::app)
                .toList(); // the concatenation's order: priority, then list order
        StringBuilder report = new StringBuilder("chain (unmerged): ")
                .append(String.join(" -> ", order))
                .append(';');
        r.report().notes().forEach(n -> report.append(' ').append(n).append(';'));
        return new Composed(r.merged(), r.provenance(), report.toString());
    }
}
