package org.openbox.controller.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.openbox.catalogue.BlockClass;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.HandleDescriptor;
import org.openbox.protocol.graph.Block;

/**
 * Which read handles of an application's block are counters worth exporting, and how their
 * answers become samples. A counter handle is one of {@link #COUNTERS} with a numeric type.
 * On a classifier a per-rule array ({@code count}, {@code byte_count}) gives one sample per
 * rule and their sum, and an indexed family ({@code count_i}) is read rule by rule (at most
 * {@code maxRules} of them); on any other block an array is summed.
 *
 * <p>Samples: {@code openbox.block.counter{app,block,dpid,handle}} for every counter (per-rule
 * families summed over the rules), {@code openbox.rule.hits{app,block,dpid,rule}} from
 * {@code count} and {@code openbox.rule.bytes{app,block,dpid,rule}} from {@code byte_count}.
 */
final class BlockCounters {

    /** Read handle names that count something (packets, bytes, drops, failures ...). */
    static final Set<String> COUNTERS = Set.of(
            "count",
            "byte_count",
            "drops",
            "no_match",
            "failures",
            "misses",
            "passed",
            "no_buffer",
            "new_flows",
            "untracked",
            "count_success",
            "count_failure",
            "mapping_failures",
            "mappings_count",
            "scans",
            "second_scans",
            "offloads",
            "full",
            "segments",
            "bytes");

    enum Kind {
        SCALAR,
        RULE_ARRAY,
        RULE_INDEXED
    }

    /**
     * One read to make: {@code handles} on the application's block (one, or one per rule of
     * an indexed family); {@code name} is the counter's name ({@code count} for {@code count_i}).
     */
    record Read(String name, Kind kind, List<String> handles) {}

    private BlockCounters() {}

    static List<Read> reads(BlockDescriptor d, Block block, int maxRules) {
        List<Read> out = new ArrayList<>();
        if (d == null) {
            return out;
        }
        boolean classifier = d.blockClass() == BlockClass.CLASSIFIER;
        for (HandleDescriptor h : d.readHandles()) {
            String type = h.type() == null ? "" : h.type();
            boolean numeric = type.startsWith("integer") || type.startsWith("number");
            if (!numeric) {
                continue;
            }
            if (h.indexed()) {
                String base = h.name().substring(0, h.name().length() - 2); // "count_i" -> "count"
                if (!classifier || !COUNTERS.contains(base)) {
                    continue;
                }
                int rules = Math.min(maxRules, d.outputCount(block.config()));
                List<String> handles = new ArrayList<>();
                for (int r = 0; r < rules; r++) {
                    handles.add(base + "_" + r);
                }
                if (!handles.isEmpty()) {
                    out.add(new Read(base, Kind.RULE_INDEXED, handles));
                }
            } else if (COUNTERS.contains(h.name())) {
                boolean array = type.endsWith("[]");
                out.add(new Read(h.name(), array && classifier ? Kind.RULE_ARRAY : Kind.SCALAR, List.of(h.name())));
            }
        }
        return out;
    }

    /** The samples of one read's answers (one per handle, null where it failed). */
    static List<DataPlaneMeters.Sample> samples(
            String app, String block, long dpid, Read read, List<JsonNode> answers) {
        List<DataPlaneMeters.Sample> out = new ArrayList<>();
        String obi = Long.toString(dpid);
        List<Double> perRule = new ArrayList<>();
        if (read.kind() == Kind.RULE_ARRAY) {
            JsonNode a = answers.get(0);
            if (a == null || !a.isArray()) {
                return out;
            }
            a.forEach(v -> perRule.add(v.isNumber() ? v.asDouble() : Double.NaN));
        } else if (read.kind() == Kind.RULE_INDEXED) {
            answers.forEach(v -> perRule.add(v != null && v.isNumber() ? v.asDouble() : Double.NaN));
        } else {
            JsonNode v = answers.get(0);
            double total = sum(v);
            if (!Double.isNaN(total)) {
                out.add(blockCounter(app, block, obi, read.name(), total));
            }
            return out;
        }
        String perRuleName = read.name().equals("count")
                ? "openbox.rule.hits"
                : read.name().equals("byte_count") ? "openbox.rule.bytes" : null;
        double total = 0;
        boolean any = false;
        for (int r = 0; r < perRule.size(); r++) {
            double v = perRule.get(r);
            if (Double.isNaN(v)) {
                continue;
            }
            any = true;
            total += v;
            if (perRuleName != null) {
                out.add(DataPlaneMeters.Sample.counter(
                        perRuleName,
                        perRuleName.endsWith("hits")
                                ? "packets matched by each rule of an application's classifier"
                                : "bytes matched by each rule of an application's classifier",
                        v,
                        "app",
                        app,
                        "block",
                        block,
                        "dpid",
                        obi,
                        "rule",
                        Integer.toString(r)));
            }
        }
        if (any) {
            out.add(blockCounter(app, block, obi, read.name(), total));
        }
        return out;
    }

    private static DataPlaneMeters.Sample blockCounter(String app, String block, String dpid, String handle, double v) {
        return DataPlaneMeters.Sample.counter(
                "openbox.block.counter",
                "a counter read handle of an application's block at one OBI (per-rule families summed)",
                v,
                "app",
                app,
                "block",
                block,
                "dpid",
                dpid,
                "handle",
                handle);
    }

    /** A number, or the sum of an array of numbers; NaN for anything else. */
    private static double sum(JsonNode v) {
        if (v == null) {
            return Double.NaN;
        }
        if (v.isNumber()) {
            return v.asDouble();
        }
        if (v.isArray()) {
            double t = 0;
            for (JsonNode x : v) {
                if (!x.isNumber()) {
                    return Double.NaN;
                }
                t += x.asDouble();
            }
            return t;
        }
        return Double.NaN;
    }
}
