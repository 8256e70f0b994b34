package org.openbox.controller.handles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.openbox.api.GraphBuilder;
import org.openbox.api.blocks.Alert;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderClassifier;
import org.openbox.api.blocks.RegexClassifier;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;
import org.openbox.catalogue.Catalogue;
import org.openbox.controller.aggregate.AppPart;
import org.openbox.controller.aggregate.Composed;
import org.openbox.controller.aggregate.MergingComposer;
import org.openbox.merge.MergeOptions;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Graph;

/**
 * Per-rule handles through a real merge of a firewall (HeaderClassifier, per-rule arrays)
 * and an IPS (RegexClassifier, indexed handles {@code count_i}). The merged classifier
 * spells the family one way only, so each application's handle is translated; a fake OBI
 * answers merged rule m with 10^m, which makes every sum show exactly which merged rules
 * went into it.
 */
class HandlePlannerTest {

    private static final JsonNodeFactory J = JsonNodeFactory.instance;
    private static final Catalogue CATALOGUE = Catalogue.load();

    /** fw: rules 0 (ssh) -> drop, 1 (web) and 2 (anything else) -> out; both outputs lead to ips. */
    private static Graph firewall() {
        HeaderClassifier cls = new HeaderClassifier("cls")
                .rule(Match.of().tcpDst(22))
                .rule(Match.of().tcpDst(80))
                .rule(Match.of());
        ToDevice out = new ToDevice("out", "eth1");
        return new GraphBuilder()
                .connect(new FromDevice("in", "eth0"), cls)
                .connect(cls, 0, new Discard("drop"))
                .connect(cls, 1, out)
                .connect(cls, 2, out)
                .build()
                .toGraph();
    }

    /** ips: payload patterns 0 "attack", 1 "evil" -> alerts -> drop; 2 "." -> out. */
    private static Graph ips() {
        RegexClassifier sig = new RegexClassifier("sig").payloadOnly(true).pattern("attack", "evil", ".");
        Discard drop = new Discard("drop");
        return new GraphBuilder()
                .connect(new FromDevice("in", "eth0"), sig)
                .connect(sig, 0, new Alert("a0").alert("attack", 3))
                .connect("a0", 0, "drop", 0)
                .connect(sig, 1, new Alert("a1").alert("evil", 3))
                .add(drop)
                .connect("a1", 0, "drop", 0)
                .connect(sig, 2, new ToDevice("out", "eth1"))
                .build()
                .toGraph();
    }

    private final Composed merged = new MergingComposer(() -> CATALOGUE, new MergeOptions(10_000, false))
            .compose(List.of(new AppPart("fw", 200, firewall()), new AppPart("ips", 100, ips())));
    private final HandlePlanner planner = new HandlePlanner(CATALOGUE);

    private Block mergedBlock(String name) {
        return merged.graph().blocks().stream()
                .filter(b -> b.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static Block appBlock(Graph g, String name) {
        return g.blocks().stream()
                .filter(b -> b.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static int ruleCount(Block b) {
        JsonNode rules =
                b.config().has("match") ? b.config().get("match") : b.config().get("pattern");
        return rules.size();
    }

    /** Position of merged rule 0 of each merged classifier, so every merged rule of the graph has its own digit. */
    private int offset(Block merged) {
        int at = 0;
        for (Block b : this.merged.graph().blocks()) {
            if (b.name().equals(merged.name())) {
                return at;
            }
            if (b.config() != null && (b.config().has("match") || b.config().has("pattern"))) {
                at += ruleCount(b);
            }
        }
        throw new AssertionError(merged.name());
    }

    /** What an OBI answers for a merged classifier: its rule m counts 10^(offset + m), as an array or as count_m. */
    private JsonNode obiAnswer(Block merged, String handle) {
        int base = offset(merged);
        if (handle.startsWith("count_")) {
            return J.numberNode(BigInteger.TEN.pow(base + Integer.parseInt(handle.substring(6))));
        }
        ArrayNode a = J.arrayNode();
        for (int m = 0; m < ruleCount(merged); m++) {
            a.add(BigInteger.TEN.pow(base + m));
        }
        return a;
    }

    /** Reads an application handle over every merged block implementing the block, combined. */
    private JsonNode read(String app, Block appBlock, String handle) {
        HandleName h = HandleName.read(CATALOGUE.find(appBlock.type()).orElseThrow(), appBlock.name(), handle);
        planner.checkIndex(appBlock, h);
        List<JsonNode> answers = new ArrayList<>();
        for (String name : merged.origins().mergedBlocksOf(app, appBlock.name())) {
            Block m = mergedBlock(name);
            Optional<HandlePlanner.ReadPlan> plan = planner.read(app, appBlock, h, m, merged.origins());
            plan.ifPresent(p -> answers.add(p.combine()
                    .apply(p.handles().stream().map(x -> obiAnswer(m, x)).toList())));
        }
        return ResultCombiner.combine(answers);
    }

    /** Merged rule indexes (over all merged blocks) as the set of decimal digit positions that are 1. */
    private static Set<Integer> ones(JsonNode v) {
        String s = new StringBuilder(v.bigIntegerValue().toString()).reverse().toString();
        Set<Integer> out = new HashSet<>();
        for (int i = 0; i < s.length(); i++) {
            assertThat(s.charAt(i)).as("a merged rule counted twice in " + v).isIn('0', '1');
            if (s.charAt(i) == '1') {
                out.add(i);
            }
        }
        return out;
    }

    @Test
    void theTwoClassifiersAreCombinedIntoMergedClassifiers() {
        List<String> fwCls = merged.origins().mergedBlocksOf("fw", "cls");
        List<String> ipsSig = merged.origins().mergedBlocksOf("ips", "sig");
        List<String> combined = fwCls.stream().filter(ipsSig::contains).toList();
        assertThat(combined).as("fw.cls and ips.sig share merged classifiers").isNotEmpty();
        // the classifier that holds ips's payload rules spells counts as an array: count_i is translated
        assertThat(combined.stream().map(n -> mergedBlock(n).type()))
                .containsAnyOf("HeaderPayloadClassifier", "RegexClassifier");
    }

    @Test
    void ipsIndexedCountIsTheSumOfTheMergedRulesDerivedFromItsRule() {
        Block sig = appBlock(ips(), "sig");
        List<Set<Integer>> perRule = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            JsonNode got = read("ips", sig, "count_" + r);
            assertThat(got.isIntegralNumber()).as("count_" + r + " is a number").isTrue();
            perRule.add(ones(got));
        }
        // fw's rules 1 (web) and 2 (else) both lead into ips: each ips rule is implemented twice
        for (int r = 0; r < 3; r++) {
            assertThat(perRule.get(r))
                    .as("ips rule " + r + " is the sum of two merged rules")
                    .hasSize(2);
        }
        Set<Integer> all = new HashSet<>();
        perRule.forEach(
                s -> assertThat(all.addAll(s)).as("rules of ips are disjoint").isTrue());
    }

    @Test
    void firewallRuleArrayIsMappedBackToItsThreeRules() {
        Block cls = appBlock(firewall(), "cls");
        JsonNode got = read("fw", cls, "count");
        assertThat(got.isArray()).isTrue();
        assertThat(got).hasSize(3);
        Set<Integer> ssh = ones(got.get(0));
        Set<Integer> web = ones(got.get(1));
        Set<Integer> other = ones(got.get(2));
        assertThat(ssh).hasSize(1);
        // web and "else" traffic are split over ips's three patterns plus ips's "no match" fallback
        assertThat(web).hasSizeGreaterThanOrEqualTo(3);
        assertThat(other).hasSizeGreaterThanOrEqualTo(3);
        assertThat(ssh).doesNotContainAnyElementsOf(web).doesNotContainAnyElementsOf(other);
        assertThat(web).doesNotContainAnyElementsOf(other);
        // count_1 of the same block is element 1 of the array
        assertThat(HandleName.read(CATALOGUE.find("HeaderClassifier").orElseThrow(), "cls", "count")
                        .kind())
                .isEqualTo(HandleName.Kind.RULE_ARRAY);
        // and ips's indexed rules are exactly fw's web and else rules split up
        Set<Integer> ipsRules = new HashSet<>();
        for (int r = 0; r < 3; r++) {
            ipsRules.addAll(ones(read("ips", appBlock(ips(), "sig"), "count_" + r)));
        }
        Set<Integer> fwForward = new HashSet<>(web);
        fwForward.addAll(other);
        assertThat(fwForward).containsAll(ipsRules);
    }

    @Test
    void outOfRangeIndexAndUnknownHandleAreRefusedBeforeAnythingIsSent() {
        Block sig = appBlock(ips(), "sig");
        assertThatThrownBy(() -> read("ips", sig, "count_3"))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("has 3 rule(s)")
                .satisfies(e -> assertThat(((ProtocolException) e).subtype()).isEqualTo(ErrorSubtype.ILLEGAL_ARGUMENT));
        assertThatThrownBy(() -> read("ips", sig, "cnt"))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("no read handle 'cnt'");
    }

    @Test
    void plainHandlesPassThroughUnchanged() {
        Block sig = appBlock(ips(), "sig");
        HandleName h = HandleName.write(CATALOGUE.find("RegexClassifier").orElseThrow(), "sig", "reset_counts");
        assertThat(h.kind()).isEqualTo(HandleName.Kind.PLAIN);
        String combined = merged.origins().mergedBlocksOf("ips", "sig").get(0);
        assertThat(planner.write("ips", sig, h, mergedBlock(combined), merged.origins()))
                .containsExactly("reset_counts");
    }

    /**
     * A classifier the merge keeps as it is (ProtocolAnalyzer: no rule provenance) merged
     * with the firewall: its indexed reads and writes pass through unchanged, and an index
     * beyond its outputs is refused.
     */
    @Test
    void indexedHandlesOfAClassifierTheMergeKeepsPassThrough() {
        org.openbox.api.blocks.ProtocolAnalyzer pa =
                new org.openbox.api.blocks.ProtocolAnalyzer("pa").protocols("tcp", "udp");
        Graph analyzer = new GraphBuilder()
                .connect(new FromDevice("in", "eth0"), pa)
                .connect(pa, 1, new ToDevice("out", "eth1"))
                .connect(pa, 2, new ToDevice("out2", "eth1"))
                .build()
                .toGraph();
        Composed c = new MergingComposer(() -> CATALOGUE, new MergeOptions(10_000, false))
                .compose(List.of(new AppPart("fw", 200, firewall()), new AppPart("mon", 100, analyzer)));
        Block appBlock = appBlock(analyzer, "pa");
        List<String> merged = c.origins().mergedBlocksOf("mon", "pa");
        assertThat(merged).isNotEmpty();
        var d = CATALOGUE.find("ProtocolAnalyzer").orElseThrow();
        for (String name : merged) {
            Block m = c.graph().blocks().stream()
                    .filter(b -> b.name().equals(name))
                    .findFirst()
                    .orElseThrow();
            assertThat(m.type()).isEqualTo("ProtocolAnalyzer");
            HandleName reset = HandleName.write(d, "pa", "reset_1");
            assertThat(reset.kind()).isEqualTo(HandleName.Kind.RULE_INDEXED);
            assertThat(planner.write("mon", appBlock, reset, m, c.origins())).containsExactly("reset_1");
            HandleName count = HandleName.read(d, "pa", "count_2");
            assertThat(planner.read("mon", appBlock, count, m, c.origins())
                            .orElseThrow()
                            .handles())
                    .containsExactly("count_2");
        }
        assertThatThrownBy(() -> planner.checkIndex(appBlock, HandleName.write(d, "pa", "reset_3")))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("has 3 rule(s)");
    }
}
