package org.openbox.controller.aggregate;

import org.openbox.merge.Origin;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Provenance where each merged block implements application blocks one to one
 * (renaming only): rules map to themselves.
 */
final class MapOrigins implements BlockOrigins {

    private final Map<String, List<Origin>> origins = new LinkedHashMap<>();
    private final Map<Origin, List<String>> merged = new LinkedHashMap<>();

    void add(String mergedBlock, Origin origin) {
        origins.computeIfAbsent(mergedBlock, k -> new ArrayList<>()).add(origin);
        merged.computeIfAbsent(origin, k -> new ArrayList<>()).add(mergedBlock);
    }

    /** Forgets a merged block that composition removed (e.g. a joined terminal). */
    void remove(String mergedBlock) {
        List<Origin> refs = origins.remove(mergedBlock);
        if (refs != null) {
            for (Origin r : refs) {
                List<String> m = merged.get(r);
                m.remove(mergedBlock);
                if (m.isEmpty()) {
                    merged.remove(r);
                }
            }
        }
    }

    @Override
    public List<Origin> originsOf(String mergedBlock) {
        return List.copyOf(origins.getOrDefault(mergedBlock, List.of()));
    }

    @Override
    public List<String> mergedBlocksOf(String app, String block) {
        return List.copyOf(merged.getOrDefault(new Origin(app, block), List.of()));
    }

    @Override
    public List<Integer> mergedRulesOf(String app, String block, int rule, String mergedBlock) {
        return mergedBlocksOf(app, block).contains(mergedBlock) ? List.of(rule) : List.of();
    }

    @Override
    public Map<String, List<Origin>> all() {
        Map<String, List<Origin>> copy = new LinkedHashMap<>();
        origins.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        return copy;
    }
}
