package org.openbox.controller.handles;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.openbox.api.HandleClient;
import org.openbox.api.Topology;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.ModuleRegistry;
import org.openbox.controller.apps.TopologyHolder;
import org.openbox.controller.obi.ObiRegistry;
import org.openbox.controller.obi.ObiSession;
import org.openbox.controller.obi.ObiState;
import org.openbox.merge.Origin;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.message.ReadRequest;
import org.openbox.protocol.message.ReadResponse;
import org.openbox.protocol.message.WriteRequest;
import org.springframework.stereotype.Service;

/**
 * Routes an application's handle reads and writes to the merged blocks that implement its
 * block, on every OBI that is UP, so the application sees only its own block.
 *
 * <p><b>Reads</b>: every merged block implementing the block is asked; per-rule handles
 * ({@code count}, {@code count_3}, ...) are mapped through the merge provenance by
 * {@link HandlePlanner} (the application's rule r = sum of the merged rules derived from
 * it), and the answers of all merged copies on all OBIs are combined by
 * {@link ResultCombiner} (numbers summed, arrays element-wise).
 *
 * <p><b>Isolation</b>: a read of a handle that is not per rule (a Discard's {@code count},
 * a classifier's {@code no_match}) on a merged block that also implements another block
 * would include that block's packets, so it is refused like a write (below); per-rule
 * handles are always mapped to the reader's own rules.
 *
 * <p><b>Writes and isolation</b>: a write must not change what another application's blocks
 * do. It is applied only when every merged block that would receive it implements the
 * writer's block alone (its provenance is exactly that block). When one of them also
 * implements another application's block (a combined classifier, a shared block), the whole
 * write is refused before anything is sent, with {@code NOT_PERMITTED} naming the other
 * owners, the merged block and the OBI; the same holds for a merged block that combines
 * several blocks of the writer itself, since the write would reach its other block too.
 * All-or-nothing keeps the application's block consistent across OBIs.
 *
 * <p>Failures (futures completed exceptionally): a block the application does not have on
 * any OBI that is up: {@link IllegalArgumentException}; a handle the block type does not
 * have, a rule index out of range, a per-rule write the merged block cannot express, a
 * refused write: {@link ProtocolException} with the subtype; an OBI Error: its
 * {@code ObiErrorException} (also a ProtocolException).
 */
@Service
public class HandleRouter {

    private final ObiRegistry obis;
    private final GraphAggregator aggregator;
    private final AppCatalog catalog;
    private final TopologyHolder topology;
    private final ModuleRegistry modules;

    public HandleRouter(
            ObiRegistry obis,
            GraphAggregator aggregator,
            AppCatalog catalog,
            TopologyHolder topology,
            ModuleRegistry modules) {
        this.obis = obis;
        this.aggregator = aggregator;
        this.catalog = catalog;
        this.topology = topology;
        this.modules = modules;
    }

    /** The handle client given to one application. */
    public HandleClient clientFor(String app) {
        return new HandleClient() {
            @Override
            public CompletableFuture<JsonNode> read(String block, String handle) {
                return HandleRouter.this.read(app, block, handle);
            }

            @Override
            public CompletableFuture<JsonNode> read(String block, String handle, long dpid) {
                return HandleRouter.this.read(app, block, handle, Long.valueOf(dpid));
            }

            @Override
            public CompletableFuture<Void> write(String block, String handle, JsonNode value) {
                return HandleRouter.this.write(app, block, handle, value);
            }
        };
    }

    /** One merged block implementing the application's block on one OBI, with the application's block there. */
    private record Target(ObiSession obi, DeployedGraph graph, Block merged, Block appBlock) {}

    public CompletableFuture<JsonNode> read(String app, String block, String handle) {
        return read(app, block, handle, null);
    }

    /**
     * The application's view of a handle: combined over every OBI that is up and runs the
     * block, or ({@code dpid} not null) at that OBI only.
     */
    public CompletableFuture<JsonNode> read(String app, String block, String handle, Long dpid) {
        Planned planned;
        try {
            planned = plan(app, block, handle, dpid);
        } catch (IllegalArgumentException | ProtocolException e) {
            return CompletableFuture.failedFuture(e);
        }
        List<Target> read = planned.targets();
        List<HandlePlanner.ReadPlan> plans = planned.plans();
        List<CompletableFuture<JsonNode>> answers = new ArrayList<>();
        for (int i = 0; i < read.size(); i++) {
            HandlePlanner.ReadPlan p = plans.get(i);
            answers.add(readAll(app, read.get(i), p.handles()).thenApply(p.combine()));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .thenApply(x -> ResultCombiner.combine(
                        answers.stream().map(CompletableFuture::join).toList()));
    }

    /**
     * How to compute the application's view of a handle at one OBI from reads of the merged
     * blocks there, without reading them: the same mapping and isolation checks as
     * {@link #read(String, String, String, Long)}, for values the OBI reports by itself
     * (metrics on its KeepAlive). Throws {@link IllegalArgumentException} or
     * {@link ProtocolException} where that read would fail before sending anything.
     */
    public LocalRead planAt(String app, String block, String handle, long dpid) {
        Planned planned = plan(app, block, handle, dpid);
        List<LocalRead.Part> parts = new ArrayList<>();
        for (int i = 0; i < planned.targets().size(); i++) {
            HandlePlanner.ReadPlan p = planned.plans().get(i);
            parts.add(new LocalRead.Part(planned.targets().get(i).merged().name(), p.handles(), p.combine()));
        }
        return new LocalRead(List.copyOf(parts));
    }

    /** The merged blocks to read for an application's handle and how to combine their answers. */
    private record Planned(List<Target> targets, List<HandlePlanner.ReadPlan> plans) {}

    private Planned plan(String app, String block, String handle, Long dpid) {
        List<Target> targets = targets(app, block, dpid);
        if (targets.isEmpty()) {
            throw notDeployed(app, block, dpid);
        }
        HandlePlanner planner = new HandlePlanner(modules.catalogue());
        List<Target> read = new ArrayList<>();
        List<HandlePlanner.ReadPlan> plans = new ArrayList<>();
        List<Target> unmapped = new ArrayList<>();
        for (Target t : targets) {
            HandleName h = HandleName.read(planner.descriptor(t.appBlock()), block, handle);
            planner.checkIndex(t.appBlock(), h);
            Optional<HandlePlanner.ReadPlan> plan =
                    planner.read(app, t.appBlock(), h, t.merged(), t.graph().origins());
            if (plan.isPresent()) {
                read.add(t);
                plans.add(plan.get());
                if (!h.perRule()) {
                    unmapped.add(t);
                }
            }
        }
        // a per-rule value is mapped to the reader's own rules; any other value of a
        // shared merged block would include what another block counted
        checkIsolation(app, block, handle, unmapped, "read of");
        if (read.isEmpty()) {
            throw new ProtocolException(
                    ErrorSubtype.UNSUPPORTED_OTHER,
                    "no merged block implementing block '" + block + "' of application '" + app
                            + "' on an OBI that is up answers '" + handle + "' (its rules may have been folded away)");
        }
        return new Planned(read, plans);
    }

    public CompletableFuture<Void> write(String app, String block, String handle, JsonNode value) {
        List<Target> targets = targets(app, block, null);
        if (targets.isEmpty()) {
            return CompletableFuture.failedFuture(notDeployed(app, block, null));
        }
        HandlePlanner planner = new HandlePlanner(modules.catalogue());
        List<Target> written = new ArrayList<>();
        List<List<String>> handles = new ArrayList<>();
        try {
            for (Target t : targets) {
                HandleName h = HandleName.write(planner.descriptor(t.appBlock()), block, handle);
                planner.checkIndex(t.appBlock(), h);
                List<String> hs = planner.write(
                        app, t.appBlock(), h, t.merged(), t.graph().origins());
                if (!hs.isEmpty()) {
                    written.add(t);
                    handles.add(hs);
                }
            }
            if (written.isEmpty()) {
                throw new ProtocolException(
                        ErrorSubtype.ILLEGAL_ARGUMENT,
                        "no merged block implementing block '" + block + "' of application '" + app
                                + "' on an OBI that is up takes '" + handle + "'");
            }
            checkIsolation(app, block, handle, written, "write of");
        } catch (ProtocolException e) {
            return CompletableFuture.failedFuture(e);
        }
        List<CompletableFuture<?>> answers = new ArrayList<>();
        for (int i = 0; i < written.size(); i++) {
            Target t = written.get(i);
            for (String h : handles.get(i)) {
                answers.add(t.obi()
                        .client()
                        .request(xid -> new WriteRequest(xid, t.merged().name(), h, value), Set.of(app), false));
            }
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new));
    }

    /** Refuses the request when a merged block it reaches also implements another block. */
    private static void checkIsolation(String app, String block, String handle, List<Target> written, String what) {
        Origin own = new Origin(app, block);
        List<String> conflicts = new ArrayList<>();
        Set<String> otherApps = new LinkedHashSet<>();
        for (Target t : written) {
            List<Origin> others = t.graph().origins().originsOf(t.merged().name()).stream()
                    .filter(o -> !o.equals(own))
                    .toList();
            if (!others.isEmpty()) {
                others.stream().map(Origin::app).filter(a -> !a.equals(app)).forEach(otherApps::add);
                conflicts.add("OBI " + t.obi().dpid() + " merged block '"
                        + t.merged().name() + "' also implements "
                        + others.stream().map(o -> o.app() + "." + o.block()).toList());
            }
        }
        if (!conflicts.isEmpty()) {
            String who = otherApps.isEmpty() ? "other blocks of the same application" : "application(s) " + otherApps;
            String why = what.startsWith("write")
                    ? "whose behaviour it would change"
                    : "whose packets its value would include";
            throw new ProtocolException(
                    ErrorSubtype.NOT_PERMITTED,
                    what + " '" + handle + "' of block '" + block
                            + "' of application '" + app + "' refused: the block is merged with blocks of " + who
                            + ", " + why + " (" + String.join("; ", conflicts) + ")");
        }
    }

    private static CompletableFuture<List<JsonNode>> readAll(String app, Target t, List<String> handles) {
        List<CompletableFuture<JsonNode>> reads = new ArrayList<>();
        for (String h : handles) {
            reads.add(t.obi()
                    .client()
                    .request(xid -> new ReadRequest(xid, t.merged().name(), h), Set.of(app), false)
                    .thenApply(m -> ((ReadResponse) m).result()));
        }
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                .thenApply(x -> reads.stream().map(CompletableFuture::join).toList());
    }

    /** The merged blocks implementing the block on every OBI that is up, or on OBI {@code dpid} only when it is up. */
    private List<Target> targets(String app, String block, Long dpid) {
        Optional<AppEntry> entry = catalog.get(app);
        if (entry.isEmpty()) {
            return List.of();
        }
        Topology topo = topology.topology();
        List<Target> out = new ArrayList<>();
        List<ObiSession> up = new ArrayList<>();
        if (dpid != null) {
            obis.session(dpid).filter(s -> s.state() == ObiState.UP).ifPresent(up::add);
        } else {
            up.addAll(obis.upSessions());
            up.sort(Comparator.comparingLong(ObiSession::dpid));
        }
        for (ObiSession s : up) {
            DeployedGraph g = aggregator.current(s.dpid());
            List<String> merged = g.origins().mergedBlocksOf(app, block);
            if (merged.isEmpty()) {
                continue;
            }
            Optional<Block> appBlock = entry.get().graphFor(s.dpid(), topo).flatMap(p -> p.graph().blocks().stream()
                    .filter(b -> b.name().equals(block))
                    .findFirst());
            if (appBlock.isEmpty()) {
                continue;
            }
            for (String name : merged) {
                g.graph().blocks().stream()
                        .filter(b -> b.name().equals(name))
                        .findFirst()
                        .ifPresent(m -> out.add(new Target(s, g, m, appBlock.get())));
            }
        }
        return out;
    }

    private static IllegalArgumentException notDeployed(String app, String block, Long dpid) {
        return new IllegalArgumentException("application '" + app + "' has no block '" + block + "' running on "
                + (dpid != null ? "OBI " + dpid + " (or that OBI is not up)" : "any OBI that is up"));
    }
}
