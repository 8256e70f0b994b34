package org.openbox.controller.management;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.PlacedGraph;
import org.openbox.controller.apps.TopologyHolder;
import org.openbox.controller.handles.HandleRouter;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;
import org.springframework.stereotype.Component;

/**
 * GET /api/apps/{name}/rules: the rules of every classifier block of an application's own
 * graph (header, header-and-payload, regex and content classifiers), each with the match as
 * the application wrote it, a one-line label ({@link RuleLabels}) naming the block its output
 * leads to, and its hit count read through {@link HandleRouter} in the application's own rule
 * numbers (summed over the OBIs that are up, or on one OBI). A block whose counters cannot be
 * read (the application is stopped, the OBI is down) is listed with {@code hits} null.
 */
@Component
public class AppRules {

    /** Classifier types whose rules are listed, and the config key holding one rule per output. */
    static final Map<String, String> RULE_KEYS = Map.of(
            "HeaderClassifier",
            "match",
            "HeaderPayloadClassifier",
            "match",
            "RegexClassifier",
            "pattern",
            "ContentClassifier",
            "pattern");
    /** Classifiers whose counters are an indexed family (count_i): read one rule at a time, up to this many. */
    static final int MAX_INDEXED_READS = 64;

    private static final Set<String> INDEXED = Set.of("RegexClassifier");

    /** One rule of a classifier block. {@code hits} is null when the counters could not be read. */
    public record Rule(int index, JsonNode match, String label, int output, Long hits) {}

    /** One classifier block of the application's graph with its rules. */
    public record ClassifierRules(String block, String type, List<Rule> rules) {}

    private final HandleRouter handles;
    private final TopologyHolder topology;

    public AppRules(HandleRouter handles, TopologyHolder topology) {
        this.handles = handles;
        this.topology = topology;
    }

    /** The application's classifier rules; with {@code dpid}, from the graph it runs there and counted there. */
    public CompletableFuture<List<ClassifierRules>> rules(AppEntry app, Long dpid) {
        List<Graph> graphs = dpid == null
                ? app.graphs().stream().map(PlacedGraph::graph).toList()
                : app.graphFor(dpid, topology.topology()).map(PlacedGraph::graph).stream()
                        .toList();
        Map<String, CompletableFuture<ClassifierRules>> blocks = new LinkedHashMap<>();
        for (Graph g : graphs) {
            for (Block b : g.blocks()) {
                String key = RULE_KEYS.get(b.type());
                if (key != null && !blocks.containsKey(b.name())) {
                    blocks.put(b.name(), describe(app.name(), g, b, key, dpid));
                }
            }
        }
        List<CompletableFuture<ClassifierRules>> all = List.copyOf(blocks.values());
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                .thenApply(x -> all.stream().map(CompletableFuture::join).toList());
    }

    private CompletableFuture<ClassifierRules> describe(String app, Graph g, Block b, String key, Long dpid) {
        JsonNode matches = b.config() == null ? null : b.config().get(key);
        List<JsonNode> list = new ArrayList<>();
        if (matches != null && matches.isArray()) {
            matches.forEach(list::add);
        }
        Map<Integer, String> targets = new LinkedHashMap<>();
        for (Connector c : g.connectors()) {
            if (c.src().equals(b.name())) {
                targets.putIfAbsent(c.srcPort(), c.dst());
            }
        }
        return counts(app, b, list.size(), dpid).thenApply(hits -> {
            List<Rule> rules = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                Long h = hits != null && i < hits.size() ? hits.get(i) : null;
                rules.add(new Rule(i, list.get(i), RuleLabels.label(b.type(), list.get(i), targets.get(i)), i, h));
            }
            return new ClassifierRules(b.name(), b.type(), rules);
        });
    }

    /** Per-rule packet counts, or null when they cannot be read. */
    private CompletableFuture<List<Long>> counts(String app, Block b, int n, Long dpid) {
        if (n == 0) {
            return CompletableFuture.completedFuture(List.of());
        }
        if (!INDEXED.contains(b.type())) {
            return handles.read(app, b.name(), "count", dpid)
                    .thenApply(AppRules::longs)
                    .exceptionally(e -> null);
        }
        if (n > MAX_INDEXED_READS) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<JsonNode>> reads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            reads.add(handles.read(app, b.name(), "count_" + i, dpid));
        }
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                .thenApply(x -> reads.stream().map(r -> r.join().asLong()).toList())
                .exceptionally(e -> null);
    }

    private static List<Long> longs(JsonNode array) {
        if (array == null || !array.isArray()) {
            return null;
        }
        List<Long> out = new ArrayList<>();
        array.forEach(v -> out.add(v.asLong()));
        return out;
    }
}
