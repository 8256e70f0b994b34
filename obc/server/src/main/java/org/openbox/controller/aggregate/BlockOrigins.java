package org.openbox.controller.aggregate;

import org.openbox.merge.Origin;
import java.util.List;
import java.util.Map;

/**
 * Provenance of a composed graph: which application blocks every merged block implements,
 * and back. Answers are never null (empty lists instead).
 */
public interface BlockOrigins {

    List<Origin> originsOf(String mergedBlock);

    List<String> mergedBlocksOf(String app, String block);

    /**
     * Merged rule indexes of {@code mergedBlock} that implement rule {@code rule} of the
     * application's classifier {@code block}; empty when the block has no per-rule mapping
     * there.
     */
    List<Integer> mergedRulesOf(String app, String block, int rule, String mergedBlock);

    /** Every merged block with its origins (for operators). */
    Map<String, List<Origin>> all();

    BlockOrigins EMPTY = new BlockOrigins() {
        @Override public List<Origin> originsOf(String mergedBlock) { return List.of(); }
        @Override public List<String> mergedBlocksOf(String app, String block) { return List.of(); }
        @Override public List<Integer> mergedRulesOf(String app, String block, int rule, String mergedBlock) {
            return List.of();
        }
        @Override public Map<String, List<Origin>> all() { return Map.of(); }
    };
}
