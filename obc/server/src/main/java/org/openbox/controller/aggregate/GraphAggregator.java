package org.openbox.controller.aggregate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.openbox.api.FailureMode;
import org.openbox.api.Topology;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.AppState;
import org.openbox.controller.apps.PlacedGraph;
import org.openbox.controller.apps.TopologyHolder;
import org.openbox.controller.isolation.FailurePolicy;
import org.openbox.controller.isolation.NoAppAction;
import org.openbox.merge.Provenance;
import org.openbox.protocol.graph.Graph;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Computes, per OBI, the graph it should run: the graphs of every running application
 * whose location includes the OBI (an application's most specific statement there), ordered by
 * priority (highest first, ties by name), each with its traffic class ({@link TrafficClasses}),
 * composed by the {@link GraphComposer}. Keeps the
 * last graph per OBI with its provenance; that graph is what handle reads and alert
 * routing use. When composing fails, the previous graph stays and the failure is kept.
 * Compositions are remembered by their inputs, so a thousand OBIs running the same
 * applications cost one merge.
 *
 * <p>An application placed on the OBI that cannot run there (FAILED, refused by this OBI, its
 * custom module refused here) is replaced according to its failure mode
 * ({@link FailurePolicy}): open, it is left out (its traffic bypasses it); closed without a
 * traffic class, the OBI's whole traffic is dropped ({@link FailSafeGraphs#drop}: in a
 * chain every packet crosses it); closed with a class, only that class is dropped
 * ({@link FailSafeGraphs#dropClass}, composed with the others). With no running application
 * left, the OBI gets a pass or drop graph ({@code openbox.no-app-action}) on the devices of
 * the applications placed there, never an empty graph; only an OBI no application was ever
 * placed on has none.
 */
@Service
public class GraphAggregator {

    private static final Logger log = LoggerFactory.getLogger(GraphAggregator.class);

    private final AppCatalog catalog;
    private final TopologyHolder topology;
    private final GraphComposer composer;
    private final TrafficClasses classes;
    private final FailurePolicy policy;
    private final ConcurrentHashMap<Long, DeployedGraph> deployed = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, String> failures = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Set<String>> excluded = new ConcurrentHashMap<>();
    // applications an OBI refused: dpid -> application -> the OBI's reason
    private final ConcurrentHashMap<Long, Map<String, String>> refusedOn = new ConcurrentHashMap<>();
    // OBIs with the same application graphs get the same merge: computed once (bounded, newest
    // kept; merges of replaced graphs dropped)
    private final Map<List<MemoKey>, Composed> memo = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<List<MemoKey>, Composed> eldest) {
            return size() > MEMO_SIZE;
        }
    };
    private static final int MEMO_SIZE = 64;

    /**
     * A part as the memo knows it: its graph by identity. Every OBI an application's graph
     * applies to is given that same Graph object, so identity finds the shared merge; hashing
     * and comparing the graphs themselves would walk thousands of blocks per lookup (a new
     * graph equal to an old one only costs a merge that yields the same result).
     */
    private record MemoKey(String app, int priority, GraphIdentity graph, ObjectNode trafficClass) {
        static List<MemoKey> of(List<AppPart> parts) {
            return parts.stream()
                    .map(p -> new MemoKey(p.app(), p.priority(), new GraphIdentity(p.graph()), p.trafficClass()))
                    .toList();
        }
    }

    private record GraphIdentity(Graph graph) {
        @Override
        public boolean equals(Object o) {
            return o instanceof GraphIdentity g && g.graph == graph;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(graph);
        }
    }

    public GraphAggregator(
            AppCatalog catalog,
            TopologyHolder topology,
            GraphComposer composer,
            TrafficClasses classes,
            FailurePolicy policy) {
        this.catalog = catalog;
        this.topology = topology;
        this.composer = composer;
        this.classes = classes;
        this.policy = policy;
    }

    /** The graph currently assigned to the OBI (empty when none). */
    public DeployedGraph current(long dpid) {
        return deployed.getOrDefault(dpid, DeployedGraph.empty(dpid));
    }

    /**
     * The OBI's graph: the current one, or for an OBI the controller has not set up yet (it
     * kept running through a controller restart and reports before its Hello is handled) the
     * graph it would get, computed without being kept (any dpid may be named by a message, so
     * nothing is stored for it).
     */
    public synchronized DeployedGraph expected(long dpid) {
        DeployedGraph g = deployed.get(dpid);
        if (g != null) {
            return g;
        }
        try {
            return compute(dpid);
        } catch (RuntimeException e) {
            return DeployedGraph.empty(dpid);
        }
    }

    public Optional<String> failure(long dpid) {
        return Optional.ofNullable(failures.get(dpid));
    }

    /** Recomputes the OBI's graph; returns it when it differs from the current one. */
    public synchronized Optional<DeployedGraph> refresh(long dpid) {
        DeployedGraph next;
        try {
            next = compute(dpid);
            failures.remove(dpid);
        } catch (RuntimeException e) {
            log.error("cannot compose the graph of OBI {}: {}", dpid, e.getMessage(), e);
            failures.put(dpid, e.getMessage() == null ? e.toString() : e.getMessage());
            return Optional.empty();
        }
        DeployedGraph previous = deployed.put(dpid, next);
        boolean changed = previous == null ? !next.isEmpty() : !previous.graph().equals(next.graph());
        return changed ? Optional.of(next) : Optional.empty();
    }

    /**
     * Leaves these applications out of the OBI's graph (their custom modules could not be
     * installed there; their failure mode applies); an empty set includes every applicable
     * application again.
     */
    public void exclude(long dpid, Set<String> apps) {
        if (apps.isEmpty()) {
            excluded.remove(dpid);
        } else {
            excluded.put(dpid, Set.copyOf(apps));
        }
    }

    /** Applications currently left out of the OBI's graph. */
    public Set<String> excluded(long dpid) {
        return excluded.getOrDefault(dpid, Set.of());
    }

    /** The OBI refused the application's graph: from now on its failure mode applies there. */
    public void refusedOn(long dpid, String app, String reason) {
        Map<String, String> m = refusedOn.computeIfAbsent(dpid, d -> new ConcurrentHashMap<>());
        if (m.put(app, reason) == null) {
            FailureMode mode = catalog.get(app).map(AppEntry::failureMode).orElse(FailureMode.OPEN);
            log.warn(
                    "application '{}': RUNNING -> FAILED on OBI {} ({}: {}): {}",
                    app,
                    dpid,
                    mode.label(),
                    mode == FailureMode.CLOSED ? "its traffic there is dropped" : "its traffic there bypasses it",
                    reason);
        }
    }

    /** Forgets the application's refusals on every OBI (it was started or reloaded): it is tried again. */
    public void retry(String app) {
        refusedOn.forEach((dpid, m) -> {
            if (m.remove(app) != null) {
                log.warn("application '{}': FAILED -> RUNNING on OBI {} (tried again)", app, dpid);
            }
        });
    }

    /** Drops everything kept for the OBI (its session expired; a new Hello starts afresh). */
    public void forget(long dpid) {
        deployed.remove(dpid);
        failures.remove(dpid);
        excluded.remove(dpid);
        refusedOn.remove(dpid);
    }

    /** Forgets every refusal of the OBI (it restarted): its applications are tried again there. */
    public void retry(long dpid) {
        Map<String, String> m = refusedOn.remove(dpid);
        if (m != null) {
            m.keySet()
                    .forEach(app ->
                            log.warn("application '{}': FAILED -> RUNNING on OBI {} (the OBI restarted)", app, dpid));
        }
    }

    /** OBIs that refused the application, with their reasons. */
    public Map<Long, String> refusalsOf(String app) {
        Map<Long, String> out = new java.util.TreeMap<>();
        refusedOn.forEach((dpid, m) -> {
            String why = m.get(app);
            if (why != null) out.put(dpid, why);
        });
        return out;
    }

    /** Puts back the application's refusals as {@link #refusalsOf} gave them (a reload rolled back). */
    public void restoreRefusals(String app, Map<Long, String> refusals) {
        refusals.forEach((dpid, why) ->
                refusedOn.computeIfAbsent(dpid, d -> new ConcurrentHashMap<>()).put(app, why));
    }

    /** Applications refused by the OBI, with the reasons. */
    public Map<String, String> refusedOn(long dpid) {
        return Map.copyOf(refusedOn.getOrDefault(dpid, Map.of()));
    }

    /** Applications whose graph applies to the OBI, highest priority first (excluded ones left out). */
    public List<AppPart> partsFor(long dpid) {
        return plan(dpid).parts;
    }

    /** What goes on one OBI: running parts, and the applications that cannot run there. */
    private static final class Plan {
        final List<AppPart> parts = new ArrayList<>();
        final Map<String, String> fallbacks = new LinkedHashMap<>();
        PlacedGraph dropAll;
        String dropAllApp;
        PlacedGraph bypass;
        PlacedGraph anyPlaced;
    }

    private Plan plan(long dpid) {
        Topology topo = topology.topology();
        Set<String> out = excluded(dpid);
        Map<String, String> refused = refusedOn.getOrDefault(dpid, Map.of());
        Plan plan = new Plan();
        for (AppEntry e : byPriority()) {
            Optional<PlacedGraph> placed = e.graphFor(dpid, topo);
            if (placed.isEmpty()) {
                continue;
            }
            PlacedGraph p = placed.get();
            if (plan.anyPlaced == null && e.state() != AppState.REFUSED) plan.anyPlaced = p; // validated graphs only
            ObjectNode cls = classes.of(e.name()).orElse(null);
            boolean failedHere =
                    e.cannotRun() || e.running() && (out.contains(e.name()) || refused.containsKey(e.name()));
            if (e.running() && !failedHere) {
                plan.parts.add(new AppPart(e.name(), e.priority(), p.graph(), cls));
            } else if (failedHere && e.failureMode() == FailureMode.OPEN) {
                plan.fallbacks.put(e.name(), "bypass");
                if (plan.bypass == null) plan.bypass = p;
            } else if (failedHere) {
                Graph classDrop = cls == null ? null : FailSafeGraphs.dropClass(p.graph(), cls);
                if (classDrop != null) {
                    plan.fallbacks.put(e.name(), "drop class");
                    plan.parts.add(new AppPart(e.name(), e.priority(), classDrop, cls));
                } else {
                    plan.fallbacks.put(e.name(), "drop");
                    if (plan.dropAll == null) {
                        plan.dropAll = p;
                        plan.dropAllApp = e.name();
                    }
                }
            }
        }
        return plan;
    }

    /**
     * Drops the merges of graphs no application places any more (a reload replaced them):
     * identity never finds them again, and each holds a merged graph of its own. The
     * composer drops what it keeps for them too.
     */
    private void forgetReplacedGraphs() {
        Set<Graph> current = Collections.newSetFromMap(new IdentityHashMap<>());
        for (AppEntry e : catalog.all()) {
            for (PlacedGraph p : e.graphs()) {
                current.add(p.graph());
            }
        }
        memo.keySet().removeIf(k -> k.stream()
                .anyMatch(p -> !current.contains(p.graph().graph())));
        composer.retain(current::contains);
    }

    private List<AppEntry> byPriority() {
        List<AppEntry> all = new ArrayList<>(catalog.all());
        all.sort(
                java.util.Comparator.comparingInt(AppEntry::priority).reversed().thenComparing(AppEntry::name));
        return all;
    }

    private DeployedGraph compute(long dpid) {
        Plan plan = plan(dpid);
        List<String> running = plan.parts.stream()
                .map(AppPart::app)
                .filter(a -> !plan.fallbacks.containsKey(a))
                .toList();
        if (plan.dropAll != null) {
            Graph g = FailSafeGraphs.drop(plan.dropAll.graph());
            if (g != null) {
                return new DeployedGraph(
                        dpid,
                        g,
                        FailSafeGraphs.originsOf(plan.dropAllApp, g),
                        List.of(),
                        "'" + plan.dropAllApp + "' cannot run (failure mode closed): all traffic here is dropped",
                        "fail-safe drop",
                        plan.fallbacks);
            }
        }
        if (!plan.parts.isEmpty()) {
            List<MemoKey> key = MemoKey.of(plan.parts);
            Composed c = memo.get(key);
            if (c == null) {
                c = composer.compose(plan.parts);
                forgetReplacedGraphs();
                memo.put(key, c);
            }
            String report = plan.fallbacks.isEmpty()
                    ? c.report()
                    : c.report() + System.lineSeparator() + "cannot run here: " + plan.fallbacks;
            return new DeployedGraph(dpid, c.graph(), c.origins(), running, report, c.composition(), plan.fallbacks);
        }
        Map<String, String> fallbacks = new LinkedHashMap<>(plan.fallbacks);
        Graph g = null;
        String report;
        if (plan.bypass != null && (g = FailSafeGraphs.pass(plan.bypass.graph())) != null) {
            report = "no application runs here; traffic bypasses " + plan.fallbacks.keySet();
        } else if (plan.anyPlaced != null) {
            NoAppAction action = policy.noAppAction(dpid);
            g = action == NoAppAction.PASS ? FailSafeGraphs.pass(plan.anyPlaced.graph()) : null;
            if (g == null) {
                g = FailSafeGraphs.drop(plan.anyPlaced.graph());
                action = NoAppAction.DROP;
            }
            fallbacks.put(DeployedGraph.NO_APP, action.name().toLowerCase(java.util.Locale.ROOT));
            report = "no application runs here: " + fallbacks.get(DeployedGraph.NO_APP) + " (openbox.no-app-action)";
        } else {
            report = null;
        }
        if (g == null) {
            return DeployedGraph.empty(dpid);
        }
        return new DeployedGraph(dpid, g, Provenance.EMPTY, List.of(), report, "no application", fallbacks);
    }
}
