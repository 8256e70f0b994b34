package org.openbox.controller.aggregate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Provenance where each merged block implements application blocks one to one
 * (renaming only): rules map to themselves.
 */
final class MapOrigins implements BlockOrigins {

    private final Map<String, List<BlockRef>> origins = new LinkedHashMap<>();
    private final Map<BlockRef, List<String>> merged = new LinkedHashMap<>();

    void add(String mergedBlock, BlockRef origin) {
        origins.computeIfAbsent(mergedBlock, k -> new ArrayList<>()).add(origin);
        merged.computeIfAbsent(origin, k -> new ArrayList<>()).add(mergedBlock);
    }

    /** Forgets a merged block that composition removed (e.g. a joined terminal). */
    void remove(String mergedBlock) {
        List<BlockRef> refs = origins.remove(mergedBlock);
        if (refs != null) {
            for (BlockRef r : refs) {
                List<String> m = merged.get(r);
                m.remove(mergedBlock);
                if (m.isEmpty()) {
                    merged.remove(r);
                }
            }
        }
    }

    @Override
    public List<BlockRef> originsOf(String mergedBlock) {
        return List.copyOf(origins.getOrDefault(mergedBlock, List.of()));
    }

    @Override
    public List<String> mergedBlocksOf(String app, String block) {
        return List.copyOf(merged.getOrDefault(new BlockRef(app, block), List.of()));
    }

    @Override
    public List<Integer> mergedRulesOf(String app, String block, int rule, String mergedBlock) {
        return mergedBlocksOf(app, block).contains(mergedBlock) ? List.of(rule) : List.of();
    }

    @Override
    public Map<String, List<BlockRef>> all() {
        Map<String, List<BlockRef>> copy = new LinkedHashMap<>();
        origins.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        return copy;
    }
}
