package org.openbox.controller.obi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.openbox.api.CustomModule;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.controller.OpenboxProperties;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.aggregate.FaultLocator;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppState;
import org.openbox.controller.apps.AppsChanged;
import org.openbox.controller.apps.ModuleRegistry;
import org.openbox.controller.apps.TopologyHolder;
import org.openbox.controller.events.AppEvents;
import org.openbox.controller.metrics.ControllerMetrics;
import org.openbox.controller.tls.ObiIdentityException;
import org.openbox.merge.Origin;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.message.BarrierRequest;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.Message;
import org.openbox.protocol.message.SetParametersRequest;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.EventListener;
import org.springframework.core.task.TaskExecutor;
import org.springframework.stereotype.Service;

/**
 * Brings every OBI to its merged graph, on the deployment thread ({@link ObiThreads#deployment()}).
 *
 * <ul>
 * <li>Set-up of a (re)connected OBI: SetParametersRequest (keepalive_interval), its custom
 *     modules, SetProcessingGraphRequest with its merged graph (when an application applies)
 *     and BarrierRequest.</li>
 * <li>Application changes: every OBI's graph is recomputed; changed graphs are pushed to the
 *     OBIs that are UP (the others get theirs when they return).</li>
 * <li>Capabilities: a graph is pushed only when the OBI runs every block type in it (the
 *     {@code processing_blocks} of its Hello, plus the block types of the custom modules
 *     installed there). An application with a block the OBI lacks fails on that OBI with the
 *     block and OBI named (its state, the log, and an UNSUPPORTED / UNSUPPORTED_BLOCK Error
 *     event); its failure mode applies there and the others' graph is pushed.</li>
 * <li>Fault isolation: the answer to every graph push is awaited; a refusal is traced to the
 *     applications it is due to, which fail on that OBI (their failure modes apply) while the
 *     others' graph is pushed (see {@link #deploy}).</li>
 * <li>Custom modules ({@link ModuleInstaller}): installed before the graph that needs them,
 *     sent again after a Hello (the OBI may have restarted), removed once no application on
 *     the OBI needs them.</li>
 * </ul>
 */
@Service
public class GraphDeployment {

    private static final Logger log = LoggerFactory.getLogger(GraphDeployment.class);

    private final ObiRegistry registry;
    private final GraphAggregator aggregator;
    private final ModuleRegistry modules;
    private final ModuleInstaller installer;
    private final AppCatalog catalog;
    private final TopologyHolder topology;
    private final AppEvents events;
    private final MessageCodec codec;
    private final ControllerMetrics metrics;
    private final OpenboxProperties props;
    private final TaskExecutor executor;

    public GraphDeployment(
            ObiRegistry registry,
            GraphAggregator aggregator,
            ModuleRegistry modules,
            ModuleInstaller installer,
            AppCatalog catalog,
            TopologyHolder topology,
            AppEvents events,
            MessageCodec codec,
            ControllerMetrics metrics,
            OpenboxProperties props,
            ObiThreads threads) {
        this.registry = registry;
        this.aggregator = aggregator;
        this.modules = modules;
        this.installer = installer;
        this.catalog = catalog;
        this.topology = topology;
        this.events = events;
        this.codec = codec;
        this.metrics = metrics;
        this.props = props;
        this.executor = threads.deployment();
    }

    /** Pushes the OBI's full state on the deployment thread; {@code restarted} after a Hello. */
    void connect(ObiSession s, boolean restarted) {
        submit("set-up of OBI " + s.dpid(), () -> pushState(s, restarted));
    }

    /** Drops what the aggregator keeps for the OBI once its session is gone. */
    void forget(long dpid) {
        submit("forgetting OBI " + dpid, () -> {
            if (!registry.contains(dpid)) {
                aggregator.forget(dpid);
            }
        });
    }

    private void submit(String what, Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            log.warn("{} not run: the deployment queue is full (openbox.obi-threads.deployment-queue)", what);
        }
    }

    @EventListener
    public void onAppsChanged(AppsChanged change) {
        submit("application change", () -> {
            // a (re)started application gets another chance for its modules everywhere
            if (change.state() == AppState.RUNNING) {
                aggregator.retry(change.app());
                modules.modulesOf(List.of(change.app())).keySet().forEach(m -> registry.all()
                        .forEach(s -> s.retryModule(m)));
            }
            refreshAll();
        });
    }

    /** Recomputes every OBI's graph and deploys those that changed to OBIs that are UP. */
    public void refreshAll() {
        for (ObiSession s : registry.all()) {
            if (s.state() == ObiState.UP) {
                deploy(s, false, true);
            } else {
                aggregator.refresh(s.dpid()); // kept current for when it returns
            }
        }
    }

    /** Full state for a (re)connected OBI: parameters, modules, graph, barrier. Runs on the set-up thread. */
    private void pushState(ObiSession s, boolean restarted) {
        try {
            if (restarted) {
                s.restarted();
                aggregator.retry(s.dpid());
                s.pushedGraph(null);
            }
            s.retryModules();
            ObjectNode params = codec.mapper().createObjectNode();
            params.put("keepalive_interval", props.keepaliveIntervalSeconds());
            s.client()
                    .request(xid -> new SetParametersRequest(xid, params), Set.of(), true)
                    .whenComplete((m, e) -> {
                        Throwable cause = e != null && e.getCause() != null ? e.getCause() : e;
                        if (e == null || e instanceof ObiErrorException || cause instanceof ObiErrorException) {
                            s.established(true); // it answered: the OBI is really there
                        }
                        // answered, or not reachable at its endpoint: from now on it is held to
                        // keepalive-timeout (an OBI that cannot be told the interval gets no
                        // start-up grace; one that is only slow to answer keeps it)
                        if (e == null
                                || e instanceof ObiUnreachableException
                                || cause instanceof ObiUnreachableException) {
                            s.intervalTaken(true);
                        }
                        if (e != null) {
                            failed(s, "SetParametersRequest", e);
                        }
                    });
            deploy(s, true, true);
        } catch (RuntimeException e) {
            failed(s, "connection set-up", e);
        }
    }

    /**
     * Brings the OBI to its current graph. Custom modules the graph's applications need are
     * installed first, each waiting for its AddCustomModuleResponse; an application whose
     * module the OBI refuses gets an Error event and is left out of this OBI's graph (the
     * graph is recomputed without it, its failure mode applies, the other applications are
     * deployed). The graph is pushed when it differs from the last one the OBI accepted
     * (always when {@code force}, unless it is empty), followed by a BarrierRequest, and the
     * answer is awaited. When the OBI refuses the graph with an Error and {@code isolate} is
     * set, the applications the error is due to ({@link FaultLocator}) are marked refused on
     * this OBI (their failure modes apply) and the graph of the others is pushed, at most
     * once per application of the graph; the OBI keeps running its previous graph meanwhile.
     * Then modules no application there needs any more are removed. Runs on the set-up
     * thread only.
     *
     * @return why the OBI refused its current graph, did not answer in time or was not sent
     *         it (its server certificate is another dpid's); null when it runs it, or when the
     *         graph could not be delivered (the OBI is unreachable: it gets its current graph
     *         when it is back)
     */
    private String deploy(ObiSession s, boolean force, boolean isolate) {
        Set<String> excluded = new HashSet<>();
        for (String a : aggregator.excluded(s.dpid())) {
            // still excluded only while one of its modules stays refused
            if (modules.modulesOf(List.of(a)).keySet().stream().anyMatch(m -> s.moduleFailure(m) != null)) {
                excluded.add(a);
            }
        }
        int budget = -1;
        while (true) {
            aggregator.exclude(s.dpid(), excluded);
            aggregator.refresh(s.dpid());
            DeployedGraph g = aggregator.current(s.dpid());
            if (budget < 0) {
                budget = g.apps().size();
            }
            Map<String, CustomModule> needed = modules.modulesOf(g.apps());
            Set<String> refused = new HashSet<>();
            for (CustomModule m : needed.values()) {
                if (!s.installed(m.name()) && !installer.install(s, m, modules.appsNeeding(m.name(), g.apps()))) {
                    refused.addAll(modules.appsNeeding(m.name(), g.apps()));
                }
            }
            if (!refused.isEmpty() && excluded.addAll(refused)) {
                continue; // recompute without the applications whose modules are missing
            }
            List<BlockSupport.Missing> missing =
                    BlockSupport.of(s.capabilities()).missing(g, moduleTypes(s, needed));
            if (!missing.isEmpty()) {
                Set<String> lacking = BlockSupport.apps(missing);
                if (lacking.isEmpty() || !lacking.stream().allMatch(g.apps()::contains)) {
                    String why = "graph not pushed: OBI " + s.dpid() + " does not run block type(s) "
                            + missing.stream()
                                    .map(BlockSupport.Missing::type)
                                    .distinct()
                                    .toList();
                    s.lastError(why);
                    log.warn("OBI {}: {}; it keeps its previous graph", s.dpid(), why);
                    return why;
                }
                unsupported(s, missing);
                continue; // recompute without the applications whose blocks the OBI lacks
            }
            boolean changed = !Objects.equals(g.graph(), s.pushedGraph()) && !(g.isEmpty() && s.pushedGraph() == null);
            if (g.isEmpty() || !(force || changed)) {
                installer.removeUnneeded(s, needed.keySet(), CompletableFuture.completedFuture(null));
                return null;
            }
            CompletableFuture<Message> pushed = pushGraph(s, g);
            Throwable error = awaitAnswer(pushed, graphWaitMillis());
            if (error == null) {
                installer.removeUnneeded(s, needed.keySet(), pushed);
                return null;
            }
            if (error instanceof ObiUnreachableException) {
                ObiIdentityException identity = ObiIdentityException.find(error);
                // not delivered: the OBI gets its current graph when it is back; one that is
                // not the OBI of this session gets nothing
                return identity == null
                        ? null
                        : "SetProcessingGraphRequest not sent: identity error: " + identity.getMessage();
            }
            String why = "SetProcessingGraphRequest failed: " + describe(error, graphWaitMillis());
            if (!isolate || !(error instanceof ObiErrorException refusal) || budget-- <= 0) {
                return why;
            }
            Set<String> culprits =
                    FaultLocator.culprits(g, refusal.getMessage(), (app, block) -> appBlock(s.dpid(), app, block));
            if (culprits.isEmpty()) {
                log.warn(
                        "OBI {}: the refused graph cannot be traced to one application; it keeps its previous graph",
                        s.dpid());
                return why;
            }
            for (String app : culprits) {
                aggregator.refusedOn(s.dpid(), app, refusal.getMessage());
            }
        }
    }

    /**
     * Pushes the current graphs to every OBI that is UP without blaming any application for
     * a refusal; completes with the OBIs that did not take their graph (dpid -> why).
     */
    public CompletableFuture<Map<Long, String>> deployAll() {
        return CompletableFuture.supplyAsync(
                () -> {
                    Map<Long, String> failed = new java.util.TreeMap<>();
                    for (ObiSession s : registry.all()) {
                        if (s.state() == ObiState.UP) {
                            String why = deploy(s, false, false);
                            if (why != null) failed.put(s.dpid(), why);
                        } else {
                            aggregator.refresh(s.dpid());
                        }
                    }
                    return failed;
                },
                executor);
    }

    private org.openbox.protocol.graph.Block appBlock(long dpid, String app, String block) {
        return catalog.get(app)
                .flatMap(e -> e.graphFor(dpid, topology.topology()))
                .map(p -> FaultLocator.block(p.graph(), block))
                .orElse(null);
    }

    private Throwable awaitAnswer(CompletableFuture<?> answer, long millis) {
        try {
            answer.get(millis, TimeUnit.MILLISECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (TimeoutException e) {
            return e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        }
    }

    private String describe(Throwable e, long millis) {
        return e instanceof TimeoutException ? "no answer within " + millis + " ms" : String.valueOf(e.getMessage());
    }

    private CompletableFuture<Message> pushGraph(ObiSession s, DeployedGraph g) {
        s.graphStatus("pushing (" + g.graph().blocks().size() + " blocks)");
        long sent = System.nanoTime();
        CompletableFuture<Message> answer = s.client()
                .request(
                        xid -> new SetProcessingGraphRequest(
                                xid, List.of(), g.graph().blocks(), g.graph().connectors(), null),
                        Set.copyOf(g.apps()),
                        true,
                        props.graphTimeout());
        answer.whenComplete((m, e) -> {
            Throwable cause =
                    e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
            metrics.graphSwap(
                    s.dpid(),
                    e == null ? "ok" : cause instanceof ObiErrorException ? "refused" : "failed",
                    System.nanoTime() - sent);
            if (e == null) {
                s.pushedGraph(g.graph());
                s.graphStatus("running (" + g.graph().blocks().size() + " blocks)");
                s.lastError(null); // an earlier failure is over: the OBI runs its graph
            } else {
                s.graphStatus("rejected");
                RequestFailures.record(s, "SetProcessingGraphRequest", e, props.graphTimeout());
            }
        });
        s.client().send(BarrierRequest::new, true).whenComplete((m, e) -> {
            if (e != null) {
                failed(s, "BarrierRequest", e);
            }
        });
        return answer;
    }

    /** Block types of the custom modules installed on the OBI for its current graph. */
    private static Set<String> moduleTypes(ObiSession s, Map<String, CustomModule> needed) {
        return needed.values().stream()
                .filter(m -> s.installed(m.name()))
                .flatMap(m -> m.blockTypes().stream())
                .map(BlockDescriptor::name)
                .collect(Collectors.toSet());
    }

    /**
     * Each application with a block whose type the OBI lacks fails on that OBI: the reason names
     * its block, the type and the OBI (state FAILED there, the log), and it gets an
     * UNSUPPORTED / UNSUPPORTED_BLOCK Error event.
     */
    private void unsupported(ObiSession s, List<BlockSupport.Missing> missing) {
        Map<String, List<String>> byApp = new java.util.TreeMap<>();
        for (BlockSupport.Missing m : missing) {
            for (Origin r : m.origins()) {
                byApp.computeIfAbsent(r.app(), a -> new java.util.ArrayList<>())
                        .add("block '" + r.block() + "' (" + m.type() + ")");
            }
        }
        byApp.forEach((app, blocks) -> {
            String text = "OBI " + s.dpid() + " does not run "
                    + String.join(", ", blocks.stream().distinct().toList())
                    + ": the type is not among the processing_blocks of its Hello; the graph with it is not pushed";
            log.warn("application '{}': {}", app, text);
            aggregator.refusedOn(s.dpid(), app, text);
            events.onObiError(
                    s.dpid(),
                    new ErrorMessage(0, ErrorType.UNSUPPORTED, ErrorSubtype.UNSUPPORTED_BLOCK, text, null),
                    Set.of(app));
        });
    }

    private void failed(ObiSession s, String what, Throwable e) {
        RequestFailures.record(s, what, e, props.requestTimeout());
    }

    private long graphWaitMillis() {
        return props.graphTimeout().toMillis() + 500;
    }
}
