package org.openbox.controller.aggregate;

import org.openbox.merge.Provenance;
import org.openbox.protocol.graph.Graph;

/**
 * A composed graph with its provenance, a human-readable report of what was combined and
 * the composition used ("chain", or e.g. "distinct [web | dns] then ids": {@link CompositionPlan#describe}).
 */
public record Composed(Graph graph, Provenance origins, String report, String composition) {

    public Composed(Graph graph, Provenance origins, String report) {
        this(graph, origins, report, "chain");
    }
}
