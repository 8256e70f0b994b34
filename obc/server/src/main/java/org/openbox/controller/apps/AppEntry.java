package org.openbox.controller.apps;

import java.util.List;
import java.util.Optional;
import org.openbox.api.Application;
import org.openbox.api.CustomModule;
import org.openbox.api.Topology;

/**
 * One loaded application: the instance, where it came from, its validated statements and
 * its state. State fields are volatile; transitions are made by {@link AppLifecycle} only.
 */
public final class AppEntry {

    private final String name;
    private final Application app;
    private final String source;
    private final int priority;
    private volatile List<PlacedGraph> graphs;
    private volatile List<CustomModule> modules = List.of();
    private volatile AppState state;
    private volatile String error;

    AppEntry(String name, Application app, String source, int priority, List<PlacedGraph> graphs,
             AppState state, String error) {
        this.name = name;
        this.app = app;
        this.source = source;
        this.priority = priority;
        this.graphs = List.copyOf(graphs);
        this.state = state;
        this.error = error;
    }

    public String name() { return name; }
    public Application app() { return app; }
    public String source() { return source; }
    public int priority() { return priority; }
    public List<PlacedGraph> graphs() { return graphs; }
    /** Custom modules the application declared (validated at load). */
    public List<CustomModule> modules() { return modules; }
    public AppState state() { return state; }
    public String error() { return error; }
    public boolean running() { return state == AppState.RUNNING; }

    void state(AppState s, String error) {
        this.state = s;
        this.error = error;
    }

    void graphs(List<PlacedGraph> g) { this.graphs = List.copyOf(g); }

    void modules(List<CustomModule> m) { this.modules = List.copyOf(m); }

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
