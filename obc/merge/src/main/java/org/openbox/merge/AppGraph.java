package org.openbox.merge;

import java.util.Objects;
import org.openbox.protocol.graph.Graph;

/**
 * One application's processing graph, as handed to the merge.
 *
 * @param app      the application's name; it prefixes merged block names and tags provenance
 * @param priority higher runs first in a chain (stable for equal priorities)
 * @param graph    the application's graph (blocks and connectors)
 */
public record AppGraph(String app, int priority, Graph graph) {
    public AppGraph {
        Objects.requireNonNull(app, "app");
        Objects.requireNonNull(graph, "graph");
    }
}
