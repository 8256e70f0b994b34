package org.openbox.controller.handles;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.openbox.api.HandleClient;
import org.openbox.controller.aggregate.BlockOrigins;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.PlacedGraph;
import org.openbox.controller.obi.ObiManager;
import org.openbox.controller.obi.ObiSession;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.message.ReadRequest;
import org.openbox.protocol.message.ReadResponse;
import org.openbox.protocol.message.WriteRequest;
import org.springframework.stereotype.Service;

/**
 * Routes an application's handle reads and writes to the merged blocks that implement its
 * block, on every OBI that is UP, and combines the answers so the application sees only
 * its own block: numbers summed, arrays element-wise, and per-rule arrays of classifiers
 * mapped back to the application's own rule indexes (rule r = sum of the merged rules the
 * provenance derives from r). An application can only name its own blocks.
 */
@Service
public class HandleRouter {

    private static final List<String> RULE_FIELDS = List.of("match", "pattern", "patterns", "payload_match", "rules");

    private final ObiManager obis;
    private final GraphAggregator aggregator;
    private final AppCatalog catalog;

    public HandleRouter(ObiManager obis, GraphAggregator aggregator, AppCatalog catalog) {
        this.obis = obis;
        this.aggregator = aggregator;
        this.catalog = catalog;
    }

    /** The handle client given to one application. */
    public HandleClient clientFor(String app) {
        return new HandleClient() {
            @Override
            public CompletableFuture<JsonNode> read(String block, String handle) {
                return HandleRouter.this.read(app, block, handle);
            }

            @Override
            public CompletableFuture<Void> write(String block, String handle, JsonNode value) {
                return HandleRouter.this.write(app, block, handle, value);
            }
        };
    }

    /** One merged block that implements the application's block on one OBI. */
    private record Target(ObiSession obi, String mergedBlock, BlockOrigins origins) {}

    public CompletableFuture<JsonNode> read(String app, String block, String handle) {
        List<Target> targets = targets(app, block);
        if (targets.isEmpty()) {
            return CompletableFuture.failedFuture(notDeployed(app, block));
        }
        int rules = ruleCount(app, block);
        List<CompletableFuture<JsonNode>> answers = new ArrayList<>();
        for (Target t : targets) {
            answers.add(t.obi().client()
                    .request(xid -> new ReadRequest(xid, t.mergedBlock(), handle), Set.of(app), false)
                    .thenApply(m -> mapRules(((ReadResponse) m).result(), rules, app, block, t)));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .thenApply(x -> ResultCombiner.combine(answers.stream().map(CompletableFuture::join).toList()));
    }

    public CompletableFuture<Void> write(String app, String block, String handle, JsonNode value) {
        List<Target> targets = targets(app, block);
        if (targets.isEmpty()) {
            return CompletableFuture.failedFuture(notDeployed(app, block));
        }
        List<CompletableFuture<?>> answers = new ArrayList<>();
        for (Target t : targets) {
            answers.add(t.obi().client()
                    .request(xid -> new WriteRequest(xid, t.mergedBlock(), handle, value), Set.of(app), false));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new));
    }

    private List<Target> targets(String app, String block) {
        List<Target> out = new ArrayList<>();
        for (ObiSession s : obis.upSessions()) {
            DeployedGraph g = aggregator.current(s.dpid());
            for (String merged : g.origins().mergedBlocksOf(app, block)) {
                out.add(new Target(s, merged, g.origins()));
            }
        }
        return out;
    }

    /** Per-rule arrays: the application's rule r gets the sum of its merged rules. */
    private static JsonNode mapRules(JsonNode result, int rules, String app, String block, Target t) {
        if (rules <= 0 || result == null) {
            return result;
        }
        if (!result.isArray()) {
            // a merged block that implements only part of a classifier (e.g. the Discard of its
            // "no match" path) has no per-rule answer to contribute
            return null;
        }
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (int r = 0; r < rules; r++) {
            List<JsonNode> parts = new ArrayList<>();
            for (int merged : t.origins().mergedRulesOf(app, block, r, t.mergedBlock())) {
                if (merged >= 0 && merged < result.size()) {
                    parts.add(result.get(merged));
                }
            }
            out.add(parts.isEmpty() ? JsonNodeFactory.instance.numberNode(0) : ResultCombiner.combine(parts));
        }
        return out;
    }

    /** Number of rules of the application's classifier block, or 0 when it has none. */
    private int ruleCount(String app, String block) {
        Optional<AppEntry> entry = catalog.get(app);
        if (entry.isEmpty()) {
            return 0;
        }
        for (PlacedGraph g : entry.get().graphs()) {
            for (Block b : g.graph().blocks()) {
                if (b.name().equals(block) && b.config() != null) {
                    for (String f : RULE_FIELDS) {
                        JsonNode rules = b.config().get(f);
                        if (rules != null && rules.isArray()) {
                            return rules.size();
                        }
                    }
                    return 0;
                }
            }
        }
        return 0;
    }

    private static IllegalArgumentException notDeployed(String app, String block) {
        return new IllegalArgumentException("application '" + app + "' has no block '" + block
                + "' running on any OBI that is up");
    }
}
