package org.openbox.api;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** One part of an application: the processing graph to run at a location. */
public record Statement(Location location, ProcessingGraph graph) {

    public Statement {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(graph, "graph");
    }

    /**
     * The statement that applies to OBI {@code dpid}: among the statements whose location
     * includes it, the most specific (the OBI itself, then the deepest segment, then the whole
     * network); the first one listed wins a tie.
     */
    public static Optional<Statement> select(List<Statement> statements, long dpid, Topology topology) {
        Statement best = null;
        int bestSpecificity = -1;
        for (Statement s : statements) {
            if (s.location().includes(dpid, topology)) {
                int sp = s.location().specificity(topology);
                if (sp > bestSpecificity) {
                    best = s;
                    bestSpecificity = sp;
                }
            }
        }
        return Optional.ofNullable(best);
    }
}
