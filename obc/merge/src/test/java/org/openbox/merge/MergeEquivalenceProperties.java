package org.openbox.merge;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;
import org.openbox.merge.gen.GraphGen;
import org.openbox.merge.gen.PacketGen;

/**
 * merge(A, B) behaves exactly like the composition of A and B on random graphs and random
 * packets (design/merge.md, "How correctness is shown"). Graphs are decoded from integer
 * lists, so a failure shrinks to a small graph.
 */
class MergeEquivalenceProperties {
    private final GraphMerger merger = new GraphMerger(TestSupport.CATALOGUE);

    @Property(tries = 3000)
    void chainOfTwoEqualsAThenB(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 999) Integer> a,
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 999) Integer> b,
            @ForAll boolean twoInputs,
            @ForAll long seed) {
        List<AppGraph> apps = List.of(
                new AppGraph("a", 0, GraphGen.graph(a, "a", "eth0")),
                new AppGraph(
                        "b", 0, twoInputs ? GraphGen.graph(b, "b", "eth1", "eth2") : GraphGen.graph(b, "b", "eth0")));
        MergeResult r = merger.merge(apps, Composition.CHAIN, MergeOptions.defaults());
        collect(r);
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, PacketGen.packets(seed, 40));
    }

    @Property(tries = 1500)
    void classifiersMoveAcrossStaticsAndModifiersOnlyWhenSafe(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 999) Integer> a,
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 999) Integer> b,
            @ForAll long seed) {
        List<AppGraph> apps = List.of(
                new AppGraph("a", 0, GraphGen.sandwich(a, "a", "eth0")),
                new AppGraph("b", 0, GraphGen.sandwich(b, "b", "eth0")));
        MergeResult r = merger.merge(apps, Composition.CHAIN, MergeOptions.defaults());
        collect(r);
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, PacketGen.packets(seed, 40));
    }

    @Property(tries = 600)
    void wideClassifiersAreFusedAndEqualAThenB(
            @ForAll @Size(max = 80) List<@IntRange(min = 0, max = 999) Integer> a,
            @ForAll @Size(max = 80) List<@IntRange(min = 0, max = 999) Integer> b,
            @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 999) Integer> c,
            @ForAll boolean three,
            @ForAll long seed) {
        List<AppGraph> apps = new java.util.ArrayList<>(List.of(
                new AppGraph("a", 0, GraphGen.wide(a, "a", "eth0")),
                new AppGraph("b", 0, GraphGen.wide(b, "b", "eth0"))));
        if (three) apps.add(new AppGraph("c", 0, GraphGen.wide(c, "c", "eth0")));
        MergeResult r = merger.merge(apps, Composition.CHAIN, MergeOptions.defaults());
        collect(r);
        int fusing = TestSupport.assertFuseWellFormed(r.merged());
        Statistics.label("fusing blocks").collect(fusing == 0 ? "0" : fusing < 3 ? "1-2" : "3+");
        // the report lists exactly the fusing blocks
        org.junit.jupiter.api.Assertions.assertEquals(
                fusing, r.report().fused().size(), r.report().summary());
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, PacketGen.packets(seed, 40));
    }

    @Property(tries = 1000)
    void chainOfThreeEqualsSequence(
            @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 999) Integer> a,
            @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 999) Integer> b,
            @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 999) Integer> c,
            @ForAll long seed) {
        List<AppGraph> apps = List.of(
                new AppGraph("a", 0, GraphGen.graph(a, "a", "eth0")),
                new AppGraph("b", 5, GraphGen.graph(b, "b", "eth0")), // highest priority runs first
                new AppGraph("c", 0, GraphGen.graph(c, "c", "eth0")));
        MergeResult r = merger.merge(apps, Composition.CHAIN, MergeOptions.defaults());
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, PacketGen.packets(seed, 30));
    }

    @Property(tries = 2000)
    void distinctEqualsTheSplit(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 999) Integer> a,
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 999) Integer> b,
            @ForAll boolean sharedInput,
            @ForAll long seed) {
        List<AppGraph> apps = List.of(
                new AppGraph("a", 0, GraphGen.graph(a, "a", "eth0")),
                new AppGraph("b", 0, GraphGen.graph(b, "b", sharedInput ? "eth0" : "eth3")));
        MergeResult r;
        try {
            r = merger.merge(apps, Composition.DISTINCT, MergeOptions.defaults());
        } catch (MergeException e) {
            // the one refusal allowed: whole-frame regex fronts cannot share an input
            if (!e.getMessage().contains("whole-frame")) throw e;
            return;
        }
        collect(r);
        TestSupport.assertEquivalent(apps, Composition.DISTINCT, r, PacketGen.packets(seed, 40));
    }

    @Property(tries = 1000)
    void withoutFoldingEveryMatchedRuleIsCountedByAMergedRule(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 999) Integer> a,
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 999) Integer> b,
            @ForAll @IntRange(min = 1, max = 40) int bound,
            @ForAll long seed) {
        List<AppGraph> apps = List.of(
                new AppGraph("a", 0, GraphGen.graph(a, "a", "eth0")),
                new AppGraph("b", 0, GraphGen.graph(b, "b", "eth0")));
        MergeResult r = merger.merge(apps, Composition.CHAIN, new MergeOptions(bound, false));
        org.junit.jupiter.api.Assertions.assertTrue(r.report().notes().stream().noneMatch(n -> n.contains("folded")));
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, PacketGen.packets(seed, 30));
    }

    @Property(tries = 1000)
    void tinyRuleBoundKeepsClassifiersInSequence(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 999) Integer> a,
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 999) Integer> b,
            @ForAll @IntRange(min = 1, max = 4) int bound,
            @ForAll long seed) {
        List<AppGraph> apps = List.of(
                new AppGraph("a", 0, GraphGen.graph(a, "a", "eth0")),
                new AppGraph("b", 0, GraphGen.graph(b, "b", "eth0")));
        MergeResult r = merger.merge(apps, Composition.CHAIN, new MergeOptions(bound));
        Statistics.label("bound hit")
                .collect(r.report().notCombined().stream().anyMatch(s -> s.contains("rule bound")));
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, PacketGen.packets(seed, 30));
    }

    /** Reported by jqwik: how often the generated cases exercise combining. */
    private static void collect(MergeResult r) {
        int n = r.report().combined().size();
        Statistics.label("combinations").collect(n == 0 ? "0" : n < 3 ? "1-2" : "3+");
        Statistics.label("crossed a modifier or static")
                .collect(r.report().combined().stream().anyMatch(s -> s.contains("moved behind")));
        Statistics.label("refused").collect(r.report().notCombined().isEmpty() ? "none" : "some");
        Statistics.label("fused").collect(r.report().fused().isEmpty() ? "none" : "some");
    }
}
