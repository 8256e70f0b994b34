package org.openbox.controller.aggregate;

import java.util.List;
import org.openbox.protocol.graph.Graph;

/**
 * The graph computed for one OBI: merged graph, provenance, the applications in it
 * (priority order) and the composer's report. {@code graph.blocks()} is empty when no
 * running application applies to the OBI.
 */
public record DeployedGraph(long dpid, Graph graph, BlockOrigins origins, List<String> apps, String report) {

    public static DeployedGraph empty(long dpid) {
        return new DeployedGraph(dpid, new Graph(List.of(), List.of()), BlockOrigins.EMPTY, List.of(), "no application");
    }

    public boolean isEmpty() {
        return graph.blocks().isEmpty();
    }
}
