package org.openbox.controller.apps;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.openbox.api.Application;
import org.openbox.api.CustomModule;
import org.openbox.api.FailureMode;
import org.openbox.api.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loaded application: the instance, where it came from, its validated statements, its
 * state and its failure mode (what its traffic gets while it cannot run). State fields are
 * volatile; transitions are made by {@link AppLifecycle} only, and every transition into or
 * out of FAILED / REFUSED is one WARN log line.
 */
public final class AppEntry {

    private static final Logger log = LoggerFactory.getLogger(AppEntry.class);

    private final String name;
    private volatile Application app;
    private final String source;
    private final int priority;
    private volatile List<PlacedGraph> graphs;
    private volatile List<CustomModule> modules = List.of();
    private volatile AppState state;
    private volatile String error;
    private volatile FailureMode failureMode = FailureMode.OPEN;
    private volatile boolean stoppedByOperator;
    private volatile Instant reloadedAt;

    AppEntry(
            String name,
            Application app,
            String source,
            int priority,
            List<PlacedGraph> graphs,
            AppState state,
            String error) {
        this.name = name;
        this.app = app;
        this.source = source;
        this.priority = priority;
        this.graphs = List.copyOf(graphs);
        this.state = state;
        this.error = error;
    }

    public String name() {
        return name;
    }

    public Application app() {
        return app;
    }

    public String source() {
        return source;
    }

    public int priority() {
        return priority;
    }

    public List<PlacedGraph> graphs() {
        return graphs;
    }
    /** Custom modules the application declared (validated at load). */
    public List<CustomModule> modules() {
        return modules;
    }

    public AppState state() {
        return state;
    }

    public String error() {
        return error;
    }

    public boolean running() {
        return state == AppState.RUNNING;
    }
    /** The failure mode in force (the operator's override, else the application's own). */
    public FailureMode failureMode() {
        return failureMode;
    }
    /** True when the operator stopped it (it stays stopped across controller restarts). */
    public boolean stoppedByOperator() {
        return stoppedByOperator;
    }
    /** When it was last reloaded (null: never). */
    public Instant reloadedAt() {
        return reloadedAt;
    }

    /** True when the application should run but cannot (its failure mode decides its traffic). */
    public boolean cannotRun() {
        return state == AppState.FAILED || state == AppState.REFUSED && !graphs.isEmpty();
    }

    void state(AppState s, String error) {
        AppState previous = this.state;
        this.state = s;
        this.error = error;
        boolean failing = s == AppState.FAILED || s == AppState.REFUSED;
        if (previous != s && (failing || previous == AppState.FAILED || previous == AppState.REFUSED)) {
            log.warn(
                    "application '{}': {} -> {}{}{}",
                    name,
                    previous,
                    s,
                    failing
                            ? " (" + failureMode.label() + ": "
                                    + (failureMode == FailureMode.CLOSED
                                            ? "its traffic is dropped"
                                            : "its traffic bypasses it")
                                    + ")"
                            : "",
                    error == null ? "" : ": " + error);
        }
    }

    void failureMode(FailureMode m) {
        this.failureMode = m;
    }

    void stoppedByOperator(boolean b) {
        this.stoppedByOperator = b;
    }

    void reloadedAt(Instant t) {
        this.reloadedAt = t;
    }

    void app(Application a) {
        this.app = a;
    }

    void graphs(List<PlacedGraph> g) {
        this.graphs = List.copyOf(g);
    }

    void modules(List<CustomModule> m) {
        this.modules = List.copyOf(m);
    }

    /**
     * The graph this application runs on the OBI: among its statements whose location
     * includes the OBI, the most specific one (OBI, deepest segment, network); the first
     * listed wins a tie (as {@code Statement.select}).
     */
    public Optional<PlacedGraph> graphFor(long dpid, Topology topology) {
        PlacedGraph best = null;
        int bestSpecificity = -1;
        for (PlacedGraph g : graphs) {
            if (g.location().includes(dpid, topology)) {
                int sp = g.location().specificity(topology);
                if (sp > bestSpecificity) {
                    best = g;
                    bestSpecificity = sp;
                }
            }
        }
        return Optional.ofNullable(best);
    }

    public boolean appliesTo(long dpid, Topology topology) {
        return graphFor(dpid, topology).isPresent();
    }
}
