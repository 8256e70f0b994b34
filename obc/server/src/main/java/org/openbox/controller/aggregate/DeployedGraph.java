package org.openbox.controller.aggregate;

import java.util.List;
import java.util.Map;
import org.openbox.merge.Provenance;
import org.openbox.protocol.graph.Graph;

/**
 * The graph computed for one OBI: merged graph, provenance, the running applications in it
 * (priority order), the composer's report, the composition used ({@link Composed}) and what
 * stands in for each application that cannot run there (application -> "drop", "drop class"
 * or "bypass"), or for no application at all ("(no application)" -> "pass" or "drop").
 * {@code graph.blocks()} is empty only when no application is placed on the OBI at all.
 */
public record DeployedGraph(
        long dpid,
        Graph graph,
        Provenance origins,
        List<String> apps,
        String report,
        String composition,
        Map<String, String> fallbacks) {

    /** Key of {@link #fallbacks} when no application runs on the OBI. */
    public static final String NO_APP = "(no application)";

    public DeployedGraph {
        fallbacks = Map.copyOf(fallbacks);
    }

    public DeployedGraph(long dpid, Graph graph, Provenance origins, List<String> apps, String report) {
        this(dpid, graph, origins, apps, report, "chain", Map.of());
    }

    public DeployedGraph(
            long dpid, Graph graph, Provenance origins, List<String> apps, String report, String composition) {
        this(dpid, graph, origins, apps, report, composition, Map.of());
    }

    public static DeployedGraph empty(long dpid) {
        return new DeployedGraph(
                dpid, new Graph(List.of(), List.of()), Provenance.EMPTY, List.of(), "no application", "none");
    }

    public boolean isEmpty() {
        return graph.blocks().isEmpty();
    }
}
