package org.openbox.controller.handles;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.openbox.catalogue.HandleDescriptor;
import org.openbox.merge.Origin;
import org.openbox.merge.Provenance;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;

/**
 * Decides, for one merged block that implements an application's block, which handles to
 * read or write on it and how its answers become the application's view.
 *
 * <p>Per-rule handles ({@link HandleName.Kind#RULE_ARRAY}, {@link HandleName.Kind#RULE_INDEXED})
 * go through the merge provenance: the application's rule r is implemented by the merged
 * rules {@code mergedRulesOf(app, block, r, merged)}, and its value is their sum (they see
 * disjoint packets). The merged block may spell the family differently from the
 * application's block (an application's RegexClassifier {@code count_3} answered from a
 * merged HeaderPayloadClassifier's {@code count} array, or the reverse): both spellings are
 * handled. A merged block with no per-rule provenance for the block is either the block
 * itself under another name (same type, sole origin: handles pass through) or a part that
 * has no rules of it (e.g. the Discard implementing its "no match"), which contributes
 * nothing.
 */
final class HandlePlanner {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Handles to read on the merged block and how to turn their answers into the application's value. */
    record ReadPlan(List<String> handles, Function<List<JsonNode>, JsonNode> combine) {}

    private final Catalogue catalogue;

    HandlePlanner(Catalogue catalogue) {
        this.catalogue = catalogue;
    }

    BlockDescriptor descriptor(Block b) {
        return catalogue.find(b.type()).orElse(null);
    }

    /** Rejects a rule index outside the application's block (before anything is sent). */
    void checkIndex(Block appBlock, HandleName h) {
        if (h.kind() != HandleName.Kind.RULE_INDEXED) {
            return;
        }
        BlockDescriptor d = descriptor(appBlock);
        int n = d == null ? Integer.MAX_VALUE : d.outputCount(appBlock.config());
        if (h.index() >= n) {
            throw new ProtocolException(
                    ErrorSubtype.ILLEGAL_ARGUMENT,
                    "block '" + appBlock.name() + "' (" + appBlock.type() + ") has " + n + " rule(s): '" + h.handle()
                            + "' names rule " + h.index());
        }
    }

    /** The read to make on {@code merged}, or empty when it contributes nothing. */
    Optional<ReadPlan> read(String app, Block appBlock, HandleName h, Block merged, Provenance origins) {
        BlockDescriptor md = descriptor(merged);
        if (!h.perRule()) {
            return md == null || md.hasReadHandle(h.handle())
                    ? Optional.of(new ReadPlan(List.of(h.handle()), r -> r.get(0)))
                    : Optional.empty();
        }
        RuleMap map = ruleMap(app, appBlock, merged, origins);
        if (!map.mapped()) {
            if (!map.identity()) {
                return Optional.empty();
            }
            if (md == null || md.hasReadHandle(h.handle())) {
                return Optional.of(new ReadPlan(List.of(h.handle()), r -> r.get(0)));
            }
            map = map.asIdentity(); // e.g. count_3 of a block whose family is the array count
        }
        RuleMap rules = map;
        List<Integer> needed =
                h.kind() == HandleName.Kind.RULE_INDEXED ? map.rules().get(h.index()) : map.union();
        if (family(md, h.base(), false, true).isPresent()) {
            // one read of the merged per-rule array, then pick and sum
            return Optional.of(new ReadPlan(List.of(h.base()), r -> {
                JsonNode array = r.get(0);
                if (array == null || !array.isArray()) {
                    return null;
                }
                return shape(h, rules, m -> m < array.size() ? array.get(m) : null);
            }));
        }
        if (family(md, h.base(), true, true).isPresent()) {
            // one read per merged rule of the indexed family
            List<String> handles = needed.stream().map(h::member).toList();
            return Optional.of(new ReadPlan(
                    handles,
                    r -> shape(h, rules, m -> {
                        int at = needed.indexOf(m);
                        return at < 0 ? null : r.get(at);
                    })));
        }
        throw new ProtocolException(
                ErrorSubtype.UNSUPPORTED_OTHER,
                "handle '" + h.handle() + "' of block '"
                        + appBlock.name() + "': merged block '" + merged.name() + "' (" + merged.type()
                        + ") that implements its rules has neither '" + h.base() + "' nor '" + h.base() + "_i'");
    }

    /**
     * The write handles to send to {@code merged} (empty: it is not concerned). An indexed
     * write goes to each merged rule implementing the application's rule.
     */
    List<String> write(String app, Block appBlock, HandleName h, Block merged, Provenance origins) {
        BlockDescriptor md = descriptor(merged);
        boolean has = md == null || md.hasWriteHandle(h.handle());
        if (!h.perRule()) {
            return has ? List.of(h.handle()) : List.of();
        }
        RuleMap map = ruleMap(app, appBlock, merged, origins);
        if (!map.mapped()) {
            if (!map.identity()) {
                return List.of();
            }
            if (has) {
                return List.of(h.handle());
            }
            map = map.asIdentity();
        }
        List<Integer> rules = map.rules().get(h.index());
        if (rules.isEmpty()) {
            return List.of();
        }
        if (family(md, h.base(), true, false).isEmpty()) {
            throw new ProtocolException(
                    ErrorSubtype.UNSUPPORTED_OTHER,
                    "'" + h.handle() + "' of block '"
                            + appBlock.name() + "' cannot be applied to rule " + h.index() + " alone: merged block '"
                            + merged.name() + "' (" + merged.type() + ") implements it as rule(s) " + rules
                            + " and has no per-rule write handle '" + h.base() + "_i'");
        }
        return rules.stream().map(h::member).toList();
    }

    /** The application's value built from the merged values of single merged rules. */
    private static JsonNode shape(HandleName h, RuleMap map, Function<Integer, JsonNode> mergedValue) {
        if (h.kind() == HandleName.Kind.RULE_INDEXED) {
            return sum(map.rules().get(h.index()), mergedValue);
        }
        ArrayNode out = NODES.arrayNode();
        for (List<Integer> rules : map.rules()) {
            out.add(sum(rules, mergedValue));
        }
        return out;
    }

    private static JsonNode sum(List<Integer> rules, Function<Integer, JsonNode> mergedValue) {
        List<JsonNode> parts = new ArrayList<>();
        for (int m : rules) {
            JsonNode v = mergedValue.apply(m);
            if (v != null && v.isNumber()) {
                parts.add(v);
            }
        }
        return parts.isEmpty() ? NODES.numberNode(0) : ResultCombiner.sum(parts);
    }

    /** The merged descriptor's handle of family {@code base}: indexed ({@code base_i}) or a per-rule array. */
    private static Optional<HandleDescriptor> family(BlockDescriptor md, String base, boolean indexed, boolean read) {
        if (md == null) {
            return Optional.empty();
        }
        List<HandleDescriptor> hs = read ? md.readHandles() : md.writeHandles();
        return hs.stream()
                .filter(x -> indexed
                        ? x.indexed() && x.name().equals(base + "_i")
                        : !x.indexed() && x.name().equals(base) && x.type().endsWith("[]"))
                .findFirst();
    }

    /**
     * Application rule -> merged rules of one merged block. {@code mapped} is false when the
     * provenance has no rule of the block there; {@code identity} then says whether the
     * merged block is the application's block itself (same type, only origin).
     */
    private record RuleMap(List<List<Integer>> rules, boolean mapped, boolean identity) {
        /** Rule r is merged rule r (the merged block is the application's block). */
        RuleMap asIdentity() {
            List<List<Integer>> same = new ArrayList<>();
            for (int r = 0; r < rules.size(); r++) {
                same.add(List.of(r));
            }
            return new RuleMap(same, true, true);
        }

        List<Integer> union() {
            TreeSet<Integer> all = new TreeSet<>();
            rules.forEach(all::addAll);
            return List.copyOf(all);
        }
    }

    private RuleMap ruleMap(String app, Block appBlock, Block merged, Provenance origins) {
        BlockDescriptor d = descriptor(appBlock);
        int n = d == null ? 0 : d.outputCount(appBlock.config());
        List<List<Integer>> rules = new ArrayList<>();
        boolean mapped = false;
        for (int r = 0; r < n; r++) {
            List<Integer> m = origins.mergedRulesOf(app, appBlock.name(), r, merged.name());
            rules.add(m);
            mapped |= !m.isEmpty();
        }
        boolean identity = merged.type().equals(appBlock.type())
                && origins.originsOf(merged.name()).equals(List.of(new Origin(app, appBlock.name())));
        return new RuleMap(rules, mapped, identity);
    }
}
