package org.openbox.controller.isolation;

import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.apps.AppLifecycle;
import org.openbox.controller.apps.AppState;
import org.openbox.controller.obi.GraphDeployment;
import org.openbox.controller.obi.ObiRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Live reload of one application (POST /api/apps/{name}/reload): the application is built
 * again from its class (its settings and rule files read again) and validated; when it runs,
 * every OBI that is UP gets the new merged graph (the OBI swaps graphs keeping the blocks
 * that did not change, so traffic is not interrupted) and the answers are awaited. When
 * anything fails (invalid definition, an OBI refuses its new graph, no answer, the new
 * instance's start() throws) the old definition is put back, OBIs that took the new graph
 * get the old one again, and the reason is returned; OBIs that refused keep running their
 * old graph. Reloads are serialised.
 */
@Service
public class AppReload {

    private static final Logger log = LoggerFactory.getLogger(AppReload.class);

    /** The answer: an HTTP status, the application's state afterwards, what happened, OBIs that refused. */
    public record Outcome(int status, boolean ok, String state, String message, Map<Long, String> refusedBy) {}

    private final AppLifecycle lifecycle;
    private final ObiRegistry obis;
    private final GraphDeployment deployment;
    private final GraphAggregator aggregator;
    private final long waitMillis;

    public AppReload(
            AppLifecycle lifecycle,
            ObiRegistry obis,
            GraphDeployment deployment,
            GraphAggregator aggregator,
            org.openbox.controller.OpenboxProperties props) {
        this.lifecycle = lifecycle;
        this.obis = obis;
        this.deployment = deployment;
        this.aggregator = aggregator;
        // every OBI is awaited in turn (modules, then the graph it compiles)
        this.waitMillis =
                props.requestTimeout().toMillis() * 3 + props.graphTimeout().toMillis() + 1000;
    }

    public synchronized Outcome reload(String name) {
        AppLifecycle.Prepared p;
        try {
            p = lifecycle.prepareReload(name);
        } catch (NoSuchElementException e) {
            return new Outcome(404, false, null, e.getMessage(), Map.of());
        } catch (IllegalStateException e) {
            return new Outcome(409, false, state(name), e.getMessage(), Map.of());
        } catch (IllegalArgumentException e) {
            log.warn("application '{}' not reloaded: {}", name, e.getMessage());
            return new Outcome(
                    400,
                    false,
                    state(name),
                    "not reloaded, the running graph is unchanged: " + e.getMessage(),
                    Map.of());
        }
        Map<Long, String> refusals = aggregator.refusalsOf(name);
        AppLifecycle.Snapshot old = lifecycle.apply(p);
        boolean deploys = p.entry().state() == AppState.RUNNING;
        if (deploys) {
            aggregator.retry(name);
            Map<Long, String> refused = deployAll();
            if (!refused.isEmpty()) {
                rollBack(name, old, refusals);
                String why = refused.entrySet().stream()
                        .map(e -> "OBI " + e.getKey() + ": " + e.getValue())
                        .collect(java.util.stream.Collectors.joining("; "));
                log.warn("application '{}' not reloaded: {}", name, why);
                return new Outcome(
                        422, false, state(name), "not reloaded, the old graph keeps running: " + why, refused);
            }
        }
        try {
            lifecycle.finishReload(p, old);
        } catch (IllegalStateException e) {
            if (deploys) rollBack(name, old, refusals);
            log.warn("application '{}' not reloaded: {}", name, e.getMessage());
            return new Outcome(
                    500, false, state(name), "not reloaded, the old graph keeps running: " + e.getMessage(), Map.of());
        }
        return new Outcome(
                200,
                true,
                state(name),
                deploys ? "reloaded and deployed" : "reloaded (not running: nothing deployed)",
                Map.of());
    }

    private void rollBack(String name, AppLifecycle.Snapshot old, Map<Long, String> refusals) {
        lifecycle.restore(old);
        aggregator.restoreRefusals(name, refusals);
        Map<Long, String> stillRefused = deployAll();
        if (!stillRefused.isEmpty()) {
            log.error("application '{}': putting back the old graph failed on {}", name, stillRefused);
        }
    }

    private Map<Long, String> deployAll() {
        try {
            return deployment
                    .deployAll()
                    .get(waitMillis * Math.max(1, obis.upSessions().size()), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            return Map.of(-1L, "deployment failed: " + e.getCause());
        } catch (TimeoutException e) {
            return Map.of(-1L, "deployment did not complete in time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of(-1L, "interrupted");
        }
    }

    private String state(String name) {
        return lifecycle.stateOf(name);
    }
}
