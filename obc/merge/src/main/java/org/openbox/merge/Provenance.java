package org.openbox.merge;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where every merged block comes from: the (application, original block) pairs it
 * implements and, for classifiers, which merged rules implement each original rule.
 * The controller uses it to route alerts and logs to their owner and to answer an
 * application's handle reads from the merged blocks (summing per-rule counts).
 * Immutable once built.
 */
public final class Provenance {
    private final Map<String, List<Origin>> origins;
    private final Map<Origin, List<String>> blocks;
    /** merged block -> (origin block, origin rule) -> merged rule indexes (ascending) */
    private final Map<String, Map<RuleKey, List<Integer>>> rules;

    private final java.util.Set<Origin> folded;
    /** merged blocks that keep their one origin's rules as they are (rule k is merged rule k) */
    private final java.util.Set<String> sameRules;

    /** No merged block: the provenance of an empty graph. */
    public static final Provenance EMPTY = new Builder().build();

    record RuleKey(String app, String block, int rule) {}

    private Provenance(
            Map<String, List<Origin>> origins,
            Map<Origin, List<String>> blocks,
            Map<String, Map<RuleKey, List<Integer>>> rules,
            java.util.Set<Origin> folded,
            java.util.Set<String> sameRules) {
        this.folded = folded;
        this.origins = origins;
        this.blocks = blocks;
        this.rules = rules;
        this.sameRules = sameRules;
    }

    /**
     * Provenance of a graph whose every block is one application's block, unchanged (a
     * graph deployed as the application wrote it, or a fail-safe graph made of its blocks):
     * block {@code b} implements {@code app.b}, its rules map to themselves.
     */
    public static Provenance ofApplication(String app, java.util.Collection<String> blockNames) {
        Builder b = new Builder();
        for (String name : blockNames)
            b.block(name, List.of(new Origin(app, name))).sameRules(name);
        return b.build();
    }

    /** The (application, block) pairs a merged block implements, sorted; empty if unknown. */
    public List<Origin> originsOf(String mergedBlock) {
        return origins.getOrDefault(mergedBlock, List.of());
    }

    /** The merged blocks implementing an application's block, in merged-graph order. */
    public List<String> mergedBlocksOf(String app, String block) {
        return blocks.getOrDefault(new Origin(app, block), List.of());
    }

    /** Merged rule indexes of mergedBlock that implement rule {@code rule} of the app's block. */
    public List<Integer> mergedRulesOf(String app, String block, int rule, String mergedBlock) {
        Map<RuleKey, List<Integer>> m = rules.get(mergedBlock);
        if (m == null) {
            boolean same =
                    sameRules.contains(mergedBlock) && originsOf(mergedBlock).contains(new Origin(app, block));
            return same && rule >= 0 ? List.of(rule) : List.of();
        }
        return m.getOrDefault(new RuleKey(app, block, rule), List.of());
    }

    /**
     * True when a copy of the application's classifier (one always-matching rule) was
     * folded into its subtree somewhere: the packets that took that path are not counted
     * by any merged rule, so its counts read from the merged graph are partial.
     */
    public boolean folded(String app, String block) {
        return folded.contains(new Origin(app, block));
    }

    /** Every merged block name, in merged-graph order. */
    public List<String> mergedBlocks() {
        return List.copyOf(origins.keySet());
    }

    /** Every merged block with the application blocks it implements, in merged-graph order. */
    public Map<String, List<Origin>> all() {
        return origins;
    }

    /**
     * Collects the provenance while a graph is written out (the merge's emitter, the
     * concatenation, or whoever deploys a graph made of application blocks).
     */
    public static final class Builder {
        private final Map<String, List<Origin>> origins = new LinkedHashMap<>();
        private final Map<Origin, List<String>> blocks = new LinkedHashMap<>();
        private final Map<String, Map<RuleKey, List<Integer>>> rules = new LinkedHashMap<>();
        private final java.util.Set<Origin> folded = new java.util.TreeSet<>();
        private final java.util.Set<String> sameRules = new java.util.HashSet<>();

        void folded(java.util.Collection<Origin> o) {
            folded.addAll(o);
        }

        /** The merged block implements these application blocks. */
        public Builder block(String merged, List<Origin> from) {
            origins.put(merged, List.copyOf(from));
            for (Origin o : from) {
                blocks.computeIfAbsent(o, k -> new ArrayList<>()).add(merged);
            }
            return this;
        }

        /** The merged block keeps its origin's rules, same indexes (no per-rule entry needed). */
        public Builder sameRules(String merged) {
            sameRules.add(merged);
            return this;
        }

        void rule(String merged, String app, String block, int rule, int mergedRule) {
            rules.computeIfAbsent(merged, k -> new TreeMap<>(Builder::compareKeys))
                    .computeIfAbsent(new RuleKey(app, block, rule), k -> new ArrayList<>())
                    .add(mergedRule);
        }

        private static int compareKeys(RuleKey a, RuleKey b) {
            int c = a.app().compareTo(b.app());
            if (c == 0) c = a.block().compareTo(b.block());
            return c != 0 ? c : Integer.compare(a.rule(), b.rule());
        }

        /** The distinct indexes, ascending (usually one, or already in order). */
        private static List<Integer> ascending(List<Integer> list) {
            if (list.size() == 1) return List.of(list.get(0));
            boolean strictly = true;
            for (int i = 1; i < list.size() && strictly; i++) strictly = list.get(i - 1) < list.get(i);
            return strictly
                    ? List.copyOf(list)
                    : List.copyOf(list.stream().sorted().distinct().toList());
        }

        public Provenance build() {
            Map<String, Map<RuleKey, List<Integer>>> r = new LinkedHashMap<>();
            rules.forEach((k, v) -> {
                Map<RuleKey, List<Integer>> inner = new LinkedHashMap<>();
                v.forEach((rk, list) -> inner.put(rk, ascending(list)));
                r.put(k, Collections.unmodifiableMap(inner));
            });
            Map<Origin, List<String>> b = new LinkedHashMap<>();
            blocks.forEach((k, v) -> b.put(k, List.copyOf(v)));
            return new Provenance(
                    Collections.unmodifiableMap(new LinkedHashMap<>(origins)),
                    Collections.unmodifiableMap(b),
                    Collections.unmodifiableMap(r),
                    Collections.unmodifiableSet(new java.util.TreeSet<>(folded)),
                    java.util.Set.copyOf(sameRules));
        }
    }
}
