package org.openbox.controller.aggregate;

import java.util.List;
import org.openbox.protocol.graph.Graph;

/**
 * The graph computed for one OBI: merged graph, provenance, the applications in it
 * (priority order), the composer's report and the composition used ({@link Composed}).
 * {@code graph.blocks()} is empty when no running application applies to the OBI.
 */
public record DeployedGraph(long dpid, Graph graph, BlockOrigins origins, List<String> apps, String report,
                            String composition) {

    public DeployedGraph(long dpid, Graph graph, BlockOrigins origins, List<String> apps, String report) {
        this(dpid, graph, origins, apps, report, "chain");
    }

    public static DeployedGraph empty(long dpid) {
        return new DeployedGraph(dpid, new Graph(List.of(), List.of()), BlockOrigins.EMPTY, List.of(), "no application",
                "none");
    }

    public boolean isEmpty() {
        return graph.blocks().isEmpty();
    }
}
