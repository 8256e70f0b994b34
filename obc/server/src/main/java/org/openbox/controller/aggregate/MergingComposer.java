package org.openbox.controller.aggregate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.AppGraph;
import org.openbox.merge.Composition;
import org.openbox.merge.GraphMerger;
import org.openbox.merge.MergeOptions;
import org.openbox.merge.MergeResult;
import org.openbox.merge.Origin;
import org.openbox.merge.Provenance;
import org.openbox.protocol.graph.Block;

/**
 * Composes application graphs as a service chain with the graph merger (classifiers
 * combined, statics moved, identical subtrees shared), keeping the merger's provenance.
 * The merger is made per composition over the current catalogue, which includes the block
 * types of the applications' custom modules.
 */
public final class MergingComposer implements GraphComposer {

    private final Supplier<Catalogue> catalogue;
    private final MergeOptions options;

    public MergingComposer(Supplier<Catalogue> catalogue, MergeOptions options) {
        this.catalogue = catalogue;
        this.options = options;
        new GraphMerger(catalogue.get());   // fails here, at start-up, when the merger cannot be used
    }

    @Override
    public Composed compose(List<AppPart> parts) {
        List<AppGraph> graphs = parts.stream().map(p -> new AppGraph(p.app(), p.priority(), p.graph())).toList();
        MergeResult r = new GraphMerger(catalogue.get()).merge(graphs, Composition.CHAIN, options);
        List<String> blocks = r.merged().blocks().stream().map(Block::name).toList();
        return new Composed(r.merged(), new ProvenanceOrigins(r.provenance(), blocks), String.valueOf(r.report()));
    }

    /** {@link BlockOrigins} over the merger's provenance. */
    private record ProvenanceOrigins(Provenance provenance, List<String> mergedBlocks) implements BlockOrigins {

        @Override
        public List<BlockRef> originsOf(String mergedBlock) {
            List<Origin> o = provenance.originsOf(mergedBlock);
            return o == null ? List.of() : o.stream().map(x -> new BlockRef(x.app(), x.block())).toList();
        }

        @Override
        public List<String> mergedBlocksOf(String app, String block) {
            List<String> m = provenance.mergedBlocksOf(app, block);
            return m == null ? List.of() : List.copyOf(m);
        }

        @Override
        public List<Integer> mergedRulesOf(String app, String block, int rule, String mergedBlock) {
            List<Integer> m = provenance.mergedRulesOf(app, block, rule, mergedBlock);
            return m == null ? List.of() : List.copyOf(m);
        }

        @Override
        public Map<String, List<BlockRef>> all() {
            Map<String, List<BlockRef>> out = new LinkedHashMap<>();
            for (String b : mergedBlocks) {
                out.put(b, originsOf(b));
            }
            return out;
        }
    }
}
