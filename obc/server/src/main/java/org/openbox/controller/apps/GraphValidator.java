package org.openbox.controller.apps;

import org.openbox.api.GraphChecker;
import org.openbox.api.ProcessingGraph;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.graph.Graph;
import org.springframework.stereotype.Component;

/**
 * Checks an application graph before it is ever merged or pushed, with the
 * {@link GraphChecker} the northbound API and the OBI share (block names and types,
 * configurations against the catalogue, connectors and ports, feeds, cycles, limits). Throws
 * {@link org.openbox.api.InvalidGraphException} (a {@link org.openbox.protocol.ProtocolException})
 * with the spec subtype and a message naming the block or connector.
 */
@Component
public class GraphValidator {

    private final GraphChecker checker;

    public GraphValidator(Catalogue catalogue) {
        this.checker = new GraphChecker(catalogue);
    }

    public void validate(Graph graph) {
        checker.check(graph);
    }

    /**
     * As {@link #validate(Graph, Catalogue)}, for a graph the application built: one that
     * {@link org.openbox.api.GraphBuilder} already checked against the same block types is
     * not checked again (the same check would parse every header match once more).
     */
    public void validate(ProcessingGraph graph, Catalogue catalogue) {
        if (!graph.checkedAgainst(catalogue)) {
            validate(graph.toGraph(), catalogue);
        }
    }

    /** As {@link #validate(Graph)}, against {@code catalogue} (e.g. one extended by custom modules). */
    public void validate(Graph graph, Catalogue catalogue) {
        (catalogue == checker.catalogue() ? checker : new GraphChecker(catalogue)).check(graph);
    }
}
