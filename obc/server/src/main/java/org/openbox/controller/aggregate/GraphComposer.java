package org.openbox.controller.aggregate;

import java.util.List;
import java.util.function.Predicate;
import org.openbox.protocol.graph.Graph;

/**
 * Composes the graphs of the applications that apply to one OBI (already ordered by
 * priority, highest first) into the one graph the OBI runs, as a service chain.
 */
public interface GraphComposer {
    Composed compose(List<AppPart> parts);

    /**
     * Which application graphs are still placed ({@code placed} accepts them): a composer may
     * drop what it keeps for any other graph, which no composition brings again.
     */
    default void retain(Predicate<Graph> placed) {}
}
