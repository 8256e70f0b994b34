package org.openbox.controller.obi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.merge.Origin;
import org.openbox.protocol.graph.Block;

/**
 * The block types an OBI can run, from the {@code processing_blocks} map of its Hello
 * (spec 4.2.1: abstract block name -> implementations), and the blocks of a graph it lacks.
 * An OBI whose Hello has no {@code processing_blocks} map declares no restriction.
 *
 * @param declared the block types of its Hello, or null when it declared none
 */
public record BlockSupport(Set<String> declared) {

    /** Limits what is read from one Hello (a peer's message is bounded input). */
    static final int MAX_TYPES = 4096;

    /** A block of the graph whose type the OBI lacks, with the application blocks it stands for. */
    public record Missing(String block, String type, List<Origin> origins) {}

    public BlockSupport {
        declared = declared == null ? null : Set.copyOf(declared);
    }

    /** What the capabilities of a Hello declare. */
    public static BlockSupport of(ObjectNode capabilities) {
        JsonNode blocks = capabilities == null ? null : capabilities.get("processing_blocks");
        if (blocks == null || !blocks.isObject()) {
            return new BlockSupport(null);
        }
        Set<String> types = new HashSet<>();
        var names = blocks.fieldNames();
        while (names.hasNext() && types.size() < MAX_TYPES) {
            types.add(names.next());
        }
        return new BlockSupport(types);
    }

    /** Whether the OBI declared which blocks it runs. */
    public boolean restricted() {
        return declared != null;
    }

    /**
     * The blocks of {@code graph} whose type is neither declared nor in {@code added} (block
     * types of custom modules installed on the OBI since its Hello), in graph order.
     */
    public List<Missing> missing(DeployedGraph graph, Set<String> added) {
        if (declared == null) {
            return List.of();
        }
        List<Missing> out = new ArrayList<>();
        for (Block b : graph.graph().blocks()) {
            if (!declared.contains(b.type()) && !added.contains(b.type())) {
                out.add(new Missing(b.name(), b.type(), graph.origins().originsOf(b.name())));
            }
        }
        return out;
    }

    /** The applications the missing blocks come from (empty when a block has no application origin). */
    public static Set<String> apps(List<Missing> missing) {
        Set<String> apps = new LinkedHashSet<>();
        missing.forEach(m -> m.origins().forEach(r -> apps.add(r.app())));
        return apps;
    }
}
