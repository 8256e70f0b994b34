package org.openbox.controller.management;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.apps.ModuleRegistry;
import org.openbox.controller.obi.ObiQueries;
import org.openbox.controller.obi.ObiSession;
import org.openbox.protocol.graph.Block;
import org.springframework.stereotype.Component;

/**
 * GET /api/obis/{dpid}/counters: the packet counters of every block of an OBI's merged graph
 * in one answer, read from the OBI at once: per block the read handles {@code count} and
 * {@code rate} it has (a number, or one per rule for classifiers), or {@code error} when the
 * read failed. At most {@link #MAX_BLOCKS} blocks are read; {@code truncated} says when the
 * graph has more.
 */
@Component
public class BlockCounters {

    static final int MAX_BLOCKS = 256;
    private static final List<String> HANDLES = List.of("count", "rate");

    /** The answer: block name -> handle -> value (or "error" -> message). */
    public record Counters(long dpid, Map<String, Map<String, JsonNode>> blocks, boolean truncated) {}

    private final ObiQueries queries;
    private final ModuleRegistry modules;

    public BlockCounters(ObiQueries queries, ModuleRegistry modules) {
        this.queries = queries;
        this.modules = modules;
    }

    public CompletableFuture<Counters> read(ObiSession obi, DeployedGraph graph) {
        Catalogue catalogue = modules.catalogue();
        Map<String, Map<String, CompletableFuture<JsonNode>>> reads = new LinkedHashMap<>();
        List<Block> blocks = graph.graph().blocks();
        for (Block b : blocks.subList(0, Math.min(blocks.size(), MAX_BLOCKS))) {
            BlockDescriptor d = catalogue.find(b.type()).orElse(null);
            if (d == null) {
                continue;
            }
            Map<String, CompletableFuture<JsonNode>> handles = new LinkedHashMap<>();
            for (String h : HANDLES) {
                if (d.readHandles().stream()
                        .anyMatch(x -> !x.indexed() && x.name().equals(h))) {
                    handles.put(h, queries.read(obi, b.name(), h));
                }
            }
            if (!handles.isEmpty()) {
                reads.put(b.name(), handles);
            }
        }
        List<CompletableFuture<JsonNode>> all = new ArrayList<>();
        reads.values().forEach(m -> all.addAll(m.values()));
        // every read settles (answered or failed) before the answer is built
        return CompletableFuture.allOf(
                        all.stream().map(f -> f.handle((v, e) -> v)).toArray(CompletableFuture[]::new))
                .thenApply(x -> {
                    Map<String, Map<String, JsonNode>> out = new LinkedHashMap<>();
                    reads.forEach((block, handles) -> {
                        Map<String, JsonNode> values = new LinkedHashMap<>();
                        handles.forEach((h, f) -> {
                            if (f.isCompletedExceptionally()) {
                                values.put(
                                        "error",
                                        com.fasterxml.jackson.databind.node.TextNode.valueOf(f.handle(
                                                        (v, e) -> String.valueOf(
                                                                e.getCause() != null
                                                                        ? e.getCause()
                                                                                .getMessage()
                                                                        : e.getMessage()))
                                                .join()));
                            } else {
                                values.put(h, f.join());
                            }
                        });
                        out.put(block, values);
                    });
                    return new Counters(obi.dpid(), out, blocks.size() > MAX_BLOCKS);
                });
    }
}
