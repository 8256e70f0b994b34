package org.openbox.controller.aggregate;

import java.util.List;
import java.util.function.Predicate;
import org.openbox.protocol.graph.Graph;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Uses the primary composer (the graph merger) and, when it fails on a set of graphs,
 * the fallback (an unmerged chain): the OBI then runs a correct but unoptimised graph
 * instead of none. The report says so, and the failure is logged.
 */
public final class FallbackComposer implements GraphComposer {

    private static final Logger log = LoggerFactory.getLogger(FallbackComposer.class);

    private final GraphComposer primary;
    private final GraphComposer fallback;

    public FallbackComposer(GraphComposer primary, GraphComposer fallback) {
        this.primary = primary;
        this.fallback = fallback;
    }

    @Override
    public Composed compose(List<AppPart> parts) {
        try {
            return primary.compose(parts);
        } catch (RuntimeException | LinkageError e) {
            List<String> apps = parts.stream().map(AppPart::app).toList();
            log.warn("merging {} failed ({}); deploying them as an unmerged chain", apps, e.toString());
            Composed c = fallback.compose(parts);
            return new Composed(c.graph(), c.origins(), "merge failed (" + e + "); " + c.report(), c.composition());
        }
    }

    @Override
    public void retain(Predicate<Graph> placed) {
        primary.retain(placed);
        fallback.retain(placed);
    }
}
