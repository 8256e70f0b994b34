package org.openbox.controller.aggregate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.openbox.api.Topology;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.PlacedGraph;
import org.openbox.controller.apps.TopologyHolder;
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
 */
@Service
public class GraphAggregator {

    private static final Logger log = LoggerFactory.getLogger(GraphAggregator.class);

    private final AppCatalog catalog;
    private final TopologyHolder topology;
    private final GraphComposer composer;
    private final TrafficClasses classes;
    private final ConcurrentHashMap<Long, DeployedGraph> deployed = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, String> failures = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Set<String>> excluded = new ConcurrentHashMap<>();
    // OBIs with the same applications get the same merge: computed once (bounded, newest kept)
    private final Map<List<AppPart>, Composed> memo = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<List<AppPart>, Composed> eldest) {
            return size() > MEMO_SIZE;
        }
    };
    private static final int MEMO_SIZE = 64;

    public GraphAggregator(AppCatalog catalog, TopologyHolder topology, GraphComposer composer, TrafficClasses classes) {
        this.catalog = catalog;
        this.topology = topology;
        this.composer = composer;
        this.classes = classes;
    }

    /** The graph currently assigned to the OBI (empty when none). */
    public DeployedGraph current(long dpid) {
        return deployed.getOrDefault(dpid, DeployedGraph.empty(dpid));
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
     * installed there); an empty set includes every applicable application again.
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

    /** Applications whose graph applies to the OBI, highest priority first (excluded ones left out). */
    public List<AppPart> partsFor(long dpid) {
        Topology topo = topology.topology();
        Set<String> out = excluded(dpid);
        List<AppPart> parts = new ArrayList<>();
        for (AppEntry e : catalog.runningByPriority()) {
            if (out.contains(e.name())) {
                continue;
            }
            Optional<PlacedGraph> g = e.graphFor(dpid, topo);
            g.ifPresent(p -> parts.add(new AppPart(e.name(), e.priority(), p.graph(), classes.of(e.name()).orElse(null))));
        }
        return parts;
    }

    private DeployedGraph compute(long dpid) {
        List<AppPart> parts = partsFor(dpid);
        if (parts.isEmpty()) {
            return DeployedGraph.empty(dpid);
        }
        Composed c = memo.get(parts);
        if (c == null) {
            c = composer.compose(parts);
            memo.put(parts, c);
        }
        return new DeployedGraph(dpid, c.graph(), c.origins(), parts.stream().map(AppPart::app).toList(), c.report(),
                c.composition());
    }
}
