package org.openbox.controller.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.openbox.catalogue.Catalogue;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.PlacedGraph;
import org.openbox.controller.apps.TopologyHolder;
import org.openbox.controller.handles.HandleRouter;
import org.openbox.controller.handles.LocalRead;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;

/**
 * What one OBI reports on its KeepAlive under a metrics subscription, for the graph it runs:
 * the merged blocks' handles to read there ({@link #subscription}, the
 * {@code metrics_subscription} parameter) and how their values become the same samples the
 * GlobalStats / Read collection makes ({@link #samples}): per application block the counter
 * handles of {@link BlockCounters}, each mapped to the merged blocks by
 * {@link HandleRouter#planAt} exactly as a routed read is. A handle the router refuses (a
 * shared block, rules folded away) is left out, as the Read collection leaves it out.
 */
final class MetricsPlan {

    /** The OBI's bounds on a subscription (obi/src/control/metrics_subscription.hh). */
    static final int MAX_BLOCKS = 1024;

    static final int MAX_HANDLES = 4096;
    static final int MAX_NAME = 256;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** One counter of an application's block: per handle of the read, its computation (null: refused). */
    private record Counter(String app, String block, BlockCounters.Read read, List<LocalRead> perHandle) {}

    /** Samples of one KeepAlive's metrics; {@code complete} when nothing subscribed was missing. */
    record Result(List<DataPlaneMeters.Sample> samples, boolean complete) {}

    private final List<Counter> counters;
    private final Map<String, Set<String>> reads; // merged block -> handles, in first-use order

    private MetricsPlan(List<Counter> counters, Map<String, Set<String>> reads) {
        this.counters = counters;
        this.reads = reads;
    }

    static MetricsPlan build(
            long dpid,
            DeployedGraph deployed,
            AppCatalog catalog,
            TopologyHolder topology,
            Catalogue types,
            HandleRouter router,
            int maxRulesPerBlock) {
        List<Counter> counters = new ArrayList<>();
        Map<String, Set<String>> reads = new LinkedHashMap<>();
        for (String app : deployed.apps()) {
            Optional<PlacedGraph> placed = catalog.get(app).flatMap(e -> e.graphFor(dpid, topology.topology()));
            if (placed.isEmpty()) {
                continue;
            }
            for (Block b : placed.get().graph().blocks()) {
                for (BlockCounters.Read read :
                        BlockCounters.reads(types.find(b.type()).orElse(null), b, maxRulesPerBlock)) {
                    List<LocalRead> perHandle = new ArrayList<>();
                    for (String h : read.handles()) {
                        LocalRead local;
                        try {
                            local = router.planAt(app, b.name(), h, dpid);
                        } catch (IllegalArgumentException | ProtocolException e) {
                            local = null; // refused for this graph, as a routed read would be
                        }
                        perHandle.add(local);
                        if (local != null) {
                            for (LocalRead.Part p : local.parts()) {
                                reads.computeIfAbsent(p.mergedBlock(), k -> new LinkedHashSet<>())
                                        .addAll(p.handles());
                            }
                        }
                    }
                    counters.add(new Counter(app, b.name(), read, perHandle));
                }
            }
        }
        return new MetricsPlan(List.copyOf(counters), reads);
    }

    /** Whether the OBI would take the subscription (its bounds on blocks, handles and names). */
    boolean fitsObi() {
        if (reads.size() > MAX_BLOCKS) {
            return false;
        }
        int handles = 0;
        for (Map.Entry<String, Set<String>> e : reads.entrySet()) {
            if (e.getKey().isEmpty()
                    || e.getKey().length() > MAX_NAME
                    || e.getValue().stream().anyMatch(h -> h.isEmpty() || h.length() > MAX_NAME)) {
                return false;
            }
            handles += e.getValue().size();
        }
        return handles <= MAX_HANDLES;
    }

    /** Handles subscribed to, over all merged blocks. */
    int handleCount() {
        return reads.values().stream().mapToInt(Set::size).sum();
    }

    /** The {@code metrics_subscription} parameter for this plan. */
    ObjectNode subscription(long id, Duration interval) {
        ObjectNode s = NODES.objectNode();
        s.put("id", id);
        s.put("interval", Math.max(1, Math.min(86_400, interval.toSeconds())));
        s.put("global_stats", true);
        ArrayNode r = s.putArray("reads");
        reads.forEach((block, handles) -> {
            ObjectNode o = r.addObject();
            o.put("block_id", block);
            ArrayNode hs = o.putArray("read_handles");
            handles.forEach(hs::add);
        });
        return s;
    }

    /**
     * The samples of a KeepAlive's {@code metrics}: GlobalStats and every counter whose reads
     * all arrived. Incomplete when the stats are missing, the OBI left reads out (its size
     * bound) or a read failed other than for a missing block or handle.
     */
    Result samples(long dpid, JsonNode metrics) {
        List<DataPlaneMeters.Sample> out = new ArrayList<>();
        boolean complete = true;
        JsonNode stats = metrics.get("stats");
        if (stats != null && stats.isObject()) {
            out.addAll(ObiMetricsCollector.obiSamples(dpid, stats));
        } else {
            complete = false;
        }
        if (metrics.path("omitted").asLong(0) > 0) {
            complete = false;
        }
        for (JsonNode e : metrics.path("errors")) {
            if (!"ILLEGAL_ARGUMENT".equals(e.path("error_subtype").asText())) {
                complete = false;
            }
        }
        JsonNode values = metrics.path("reads");
        for (Counter c : counters) {
            List<JsonNode> answers = new ArrayList<>(c.perHandle().size());
            for (LocalRead local : c.perHandle()) {
                answers.add(
                        local == null
                                ? null
                                : local.evaluate((block, handle) -> {
                                    JsonNode v = values.path(block).get(handle);
                                    return v == null || v.isMissingNode() ? null : v;
                                }));
            }
            out.addAll(BlockCounters.samples(c.app(), c.block(), dpid, c.read(), answers));
        }
        return new Result(out, complete);
    }
}
