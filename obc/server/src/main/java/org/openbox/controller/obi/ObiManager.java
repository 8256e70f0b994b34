package org.openbox.controller.obi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Gauge;
import java.net.URI;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.openbox.controller.LimitsProperties;
import org.openbox.controller.OpenboxProperties;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.aggregate.FaultLocator;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.TopologyHolder;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.api.CustomModule;
import org.openbox.controller.apps.AppState;
import org.openbox.controller.apps.AppsChanged;
import org.openbox.controller.apps.ModuleRegistry;
import org.openbox.controller.apps.ModuleSigner;
import org.openbox.controller.events.AppEvents;
import org.openbox.controller.metrics.ControllerMetrics;
import org.openbox.controller.southbound.Rejection;
import org.openbox.controller.tls.ObiIdentityException;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;
import org.openbox.protocol.message.AddCustomModuleRequest;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.Message;
import org.openbox.protocol.message.RemoveCustomModuleRequest;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.message.BarrierRequest;
import org.openbox.protocol.message.Hello;
import org.openbox.protocol.message.SetParametersRequest;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Service;

/**
 * Keeps track of OBIs and their state.
 *
 * <ul>
 * <li>Hello: the OBI is registered (endpoint from {@code source_addr}/{@code source_port};
 *     the request's address when source_addr is absent or a wildcard, {@code openbox.obi-port}
 *     when source_port is absent) and gets, in order,
 *     SetParametersRequest (keepalive_interval), SetProcessingGraphRequest with its merged
 *     graph (when an application applies) and BarrierRequest.</li>
 * <li>Liveness: every message from an OBI moves its deadline; one sweeper thread checks all
 *     deadlines every {@code openbox.deadline-check-interval} and marks overdue OBIs DOWN
 *     (InstanceDown to the applications concerned). No thread or timer per OBI. The deadline
 *     is {@code openbox.keepalive-timeout} once the OBI has accepted the keepalive_interval
 *     (SetParametersResponse, or its endpoint is unreachable); from its Hello until then the OBI
 *     sends at the spec's default 10 s, and is given three of those (so a slow set-up, e.g. many OBIs starting at once,
 *     does not make it DOWN).</li>
 * <li>Return: a Hello or any other message from a DOWN OBI brings it UP again
 *     (InstanceUp) and its full state is pushed again. A KeepAlive from a dpid the
 *     controller never saw (e.g. after a controller restart) is refused with
 *     BAD_REQUEST / ILLEGAL_STATE so the OBI starts over with Hello.</li>
 * <li>Application changes: every OBI's graph is recomputed; changed graphs are pushed to
 *     the OBIs that are UP (the others get theirs when they return).</li>
 * <li>Fault isolation: the answer to every graph push is awaited; a refusal is traced to
 *     the applications it is due to, which fail on that OBI (their failure modes apply) while
 *     the others' graph is pushed (see {@link #deploy}).</li>
 * <li>Custom modules: before a graph is pushed, the custom modules of its applications
 *     are installed (AddCustomModuleRequest, waiting for the answer); an application whose
 *     module is refused gets an Error event and its failure mode applies on that OBI only.
 *     Modules are sent again after a Hello (the OBI may have restarted) and removed
 *     (RemoveCustomModuleRequest) once no application on the OBI needs them.</li>
 * </ul>
 */
@Service
public class ObiManager implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(ObiManager.class);

    private final ConcurrentHashMap<Long, ObiSession> sessions = new ConcurrentHashMap<>();
    private final ObiHttp http;
    private final MessageCodec codec;
    private final PendingRequests pending;
    private final ControllerMetrics metrics;
    private final OpenboxProperties props;
    private final LimitsProperties limits;
    private final GraphAggregator aggregator;
    private final AppEvents events;
    private final ModuleRegistry modules;
    private final AppCatalog catalog;
    private final TopologyHolder topology;
    private static final String MODULE_CONTENT_TYPE = "application/x-sharedlib";
    // connection set-up and graph recomputation run here, so Hello is answered at once
    private final java.util.concurrent.ExecutorService setup = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "obi-setup");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "obi-deadlines");
        t.setDaemon(true);
        return t;
    });

    public ObiManager(ObiHttp http, MessageCodec codec, PendingRequests pending, ControllerMetrics metrics,
                      OpenboxProperties props, GraphAggregator aggregator, AppEvents events, ModuleRegistry modules,
                      AppCatalog catalog, TopologyHolder topology, LimitsProperties limits) {
        this.limits = limits;
        this.catalog = catalog;
        this.topology = topology;
        this.modules = modules;
        this.http = http;
        this.codec = codec;
        this.pending = pending;
        this.metrics = metrics;
        this.props = props;
        this.aggregator = aggregator;
        this.events = events;
        Gauge.builder("openbox.obis", sessions, s -> count(ObiState.UP)).tag("state", "up")
                .description("OBIs by state").register(metrics.registry());
        Gauge.builder("openbox.obis", sessions, s -> count(ObiState.DOWN)).tag("state", "down")
                .description("OBIs by state").register(metrics.registry());
        long tick = Math.max(1, props.deadlineCheckInterval().toMillis());
        sweeper.scheduleWithFixedDelay(this::sweep, tick, tick, TimeUnit.MILLISECONDS);
    }

    public Collection<ObiSession> sessions() {
        return sessions.values().stream().sorted(Comparator.comparingLong(ObiSession::dpid)).toList();
    }

    public Optional<ObiSession> session(long dpid) {
        return Optional.ofNullable(sessions.get(dpid));
    }

    public List<ObiSession> upSessions() {
        return sessions.values().stream().filter(s -> s.state() == ObiState.UP).toList();
    }

    /**
     * Hello: registers the OBI, or renews its session. Refused (the live session is kept) when
     * the dpid has a live session (UP, heard from within the keep-alive timeout) at another
     * endpoint (source_addr/source_port or the address the Hello came from): FORBIDDEN /
     * NOT_PERMITTED, logged as a conflict. A new dpid beyond {@code openbox.limits.max-obis}
     * sessions is refused with BAD_REQUEST / ILLEGAL_STATE.
     */
    public Optional<Rejection> onHello(Hello hello, String remoteAddr) {
        URI base = endpoint(hello, remoteAddr);
        Instant now = Instant.now();
        long nanos = System.nanoTime();
        if (!sessions.containsKey(hello.dpid()) && sessions.size() >= limits.maxObis()) {
            expire(nanos);
        }
        boolean[] created = {false};
        Rejection[] refused = {null};
        ObiSession s = sessions.compute(hello.dpid(), (dpid, existing) -> {
            if (existing == null) {
                if (sessions.size() >= limits.maxObis()) {
                    refused[0] = new Rejection(ErrorSubtype.ILLEGAL_STATE, "the controller holds the maximum of "
                            + limits.maxObis() + " OBI sessions; Hello for new dpid " + dpid + " refused");
                    return null;
                }
                created[0] = true;
                return new ObiSession(dpid, client(dpid, base), remoteAddr, now, nanos);
            }
            boolean sameEndpoint = existing.client().base().equals(base) && Objects.equals(existing.remoteAddr(), remoteAddr);
            if (!sameEndpoint && alive(existing, nanos)) {
                log.warn("conflict: Hello for live OBI {} from endpoint {} (sent from {}) refused; its session stays at {}"
                        + " (sent from {})", dpid, base, remoteAddr, existing.client().base(), existing.remoteAddr());
                refused[0] = new Rejection(ErrorSubtype.NOT_PERMITTED, "dpid " + dpid
                        + " is connected from another endpoint; a new endpoint is taken only after that session times out");
                return existing;
            }
            if (!sameEndpoint) {
                http.forget(existing.client().base(), dpid);
                existing.client(client(dpid, base));
                existing.remoteAddr(remoteAddr);
            }
            return existing;
        });
        if (refused[0] != null) {
            if (s == null) {
                log.warn("Hello from OBI {} ({}) refused: {}", hello.dpid(), base, refused[0].message());
            }
            return Optional.of(refused[0]);
        }
        s.hello(hello.version(), hello.capabilities());
        s.intervalTaken(false);   // a (re)started OBI sends at the default interval until told another
        s.seen(now, nanos);
        boolean cameBack = s.transition(ObiState.UP, now);
        log.info("OBI {} said Hello (version {}, endpoint {}){}", hello.dpid(), hello.version(), base,
                created[0] ? "" : cameBack ? ", back up" : ", again");
        if (created[0] || cameBack) {
            events.instanceUp(hello.dpid());
        }
        if (!created[0]) {
            pending.failAll(hello.dpid(), "it said Hello again (a new start forgets earlier requests)");
        }
        setup.execute(() -> pushState(s, true));
        return Optional.empty();
    }

    /** UP and heard from within its deadline. */
    private boolean alive(ObiSession s, long nowNanos) {
        return s.state() == ObiState.UP && nowNanos - s.lastSeenNanos() <= deadlineNanos(s);
    }

    /** How long the OBI may stay silent: see the class comment (Liveness). */
    private long deadlineNanos(ObiSession s) {
        return (s.intervalTaken() ? props.keepaliveTimeout() : props.keepaliveTimeoutBeforeSet()).toNanos();
    }

    /**
     * KeepAlive: refused for an unknown dpid (the OBI has to say Hello first), and from an
     * address other than the session's (FORBIDDEN / NOT_PERMITTED: it does not keep the
     * session alive).
     */
    public Optional<Rejection> onKeepAlive(long dpid, String remoteAddr) {
        if (!sessions.containsKey(dpid)) {
            return Optional.of(new Rejection(ErrorSubtype.ILLEGAL_STATE,
                    "unknown dpid " + dpid + ": send Hello first"));
        }
        return fromSessionAddress(dpid, remoteAddr, "KeepAlive");
    }

    /**
     * Alert and Log: from a dpid with a session, taken only from the session's address
     * (FORBIDDEN / NOT_PERMITTED otherwise: they reach neither an application nor the alert
     * history). From a dpid without a session they are taken: an OBI that kept running while
     * the controller restarted sends what it buffered before its Hello, and the provenance
     * that attributes them is computed from the applications, not from the session. Under
     * mutual TLS the certificate has already proved the dpid.
     */
    public Optional<Rejection> onEvent(long dpid, String remoteAddr, String what) {
        return sessions.containsKey(dpid) ? fromSessionAddress(dpid, remoteAddr, what) : Optional.empty();
    }

    private Optional<Rejection> fromSessionAddress(long dpid, String remoteAddr, String what) {
        ObiSession s = sessions.get(dpid);
        if (s != null && !Objects.equals(s.remoteAddr(), remoteAddr)) {
            log.warn("conflict: {} for OBI {} from {} ignored; its session is at {}", what, dpid, remoteAddr,
                    s.remoteAddr());
            return Optional.of(new Rejection(ErrorSubtype.NOT_PERMITTED,
                    "dpid " + dpid + " is connected from another address"));
        }
        seen(dpid);
        return Optional.empty();
    }

    /** Any message from a known OBI: moves its deadline; a DOWN OBI comes back. */
    public void seen(long dpid) {
        ObiSession s = sessions.get(dpid);
        if (s == null) {
            return;
        }
        Instant now = Instant.now();
        s.seen(now, System.nanoTime());
        if (s.state() == ObiState.DOWN && s.transition(ObiState.UP, now)) {
            log.info("OBI {} is back up", dpid);
            events.instanceUp(dpid);
            setup.execute(() -> pushState(s, false));
        }
    }

    @EventListener
    public void onAppsChanged(AppsChanged change) {
        setup.execute(() -> {
            // a (re)started application gets another chance for its modules everywhere
            if (change.state() == AppState.RUNNING) {
                aggregator.retry(change.app());
                modules.modulesOf(List.of(change.app())).keySet()
                        .forEach(m -> sessions.values().forEach(s -> s.retryModule(m)));
            }
            refreshAll();
        });
    }

    /** Recomputes every OBI's graph and deploys those that changed to OBIs that are UP. */
    public void refreshAll() {
        for (ObiSession s : sessions.values()) {
            if (s.state() == ObiState.UP) {
                deploy(s, false, true);
            } else {
                aggregator.refresh(s.dpid());   // kept current for when it returns
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
            s.client().request(xid -> new SetParametersRequest(xid, params), Set.of(), true)
                    .whenComplete((m, e) -> {
                        Throwable cause = e != null && e.getCause() != null ? e.getCause() : e;
                        if (e == null || e instanceof ObiErrorException || cause instanceof ObiErrorException) {
                            s.established(true);   // it answered: the OBI is really there
                        }
                        // answered, or not reachable at its endpoint: from now on it is held to
                        // keepalive-timeout (an OBI that cannot be told the interval gets no
                        // start-up grace; one that is only slow to answer keeps it)
                        if (e == null || e instanceof ObiUnreachableException || cause instanceof ObiUnreachableException) {
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
                if (!s.installed(m.name()) && !install(s, m, modules.appsNeeding(m.name(), g.apps()))) {
                    refused.addAll(modules.appsNeeding(m.name(), g.apps()));
                }
            }
            if (!refused.isEmpty() && excluded.addAll(refused)) {
                continue;   // recompute without the applications whose modules are missing
            }
            boolean changed = !Objects.equals(g.graph(), s.pushedGraph()) && !(g.isEmpty() && s.pushedGraph() == null);
            if (g.isEmpty() || !(force || changed)) {
                removeUnneeded(s, needed.keySet(), CompletableFuture.completedFuture(null));
                return null;
            }
            CompletableFuture<Message> pushed = pushGraph(s, g);
            Throwable error = awaitAnswer(pushed, graphWaitMillis());
            if (error == null) {
                removeUnneeded(s, needed.keySet(), pushed);
                return null;
            }
            if (error instanceof ObiUnreachableException) {
                ObiIdentityException identity = ObiIdentityException.find(error);
                // not delivered: the OBI gets its current graph when it is back; one that is
                // not the OBI of this session gets nothing
                return identity == null ? null : "SetProcessingGraphRequest not sent: identity error: "
                        + identity.getMessage();
            }
            String why = "SetProcessingGraphRequest failed: " + describe(error, graphWaitMillis());
            if (!isolate || !(error instanceof ObiErrorException refusal) || budget-- <= 0) {
                return why;
            }
            Set<String> culprits = FaultLocator.culprits(g, refusal.getMessage(), (app, block) -> appBlock(s.dpid(), app, block));
            if (culprits.isEmpty()) {
                log.warn("OBI {}: the refused graph cannot be traced to one application; it keeps its previous graph",
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
        return CompletableFuture.supplyAsync(() -> {
            Map<Long, String> failed = new java.util.TreeMap<>();
            for (ObiSession s : sessions.values()) {
                if (s.state() == ObiState.UP) {
                    String why = deploy(s, false, false);
                    if (why != null) failed.put(s.dpid(), why);
                } else {
                    aggregator.refresh(s.dpid());
                }
            }
            return failed;
        }, setup);
    }

    private org.openbox.protocol.graph.Block appBlock(long dpid, String app, String block) {
        return catalog.get(app).flatMap(e -> e.graphFor(dpid, topology.topology()))
                .map(p -> FaultLocator.block(p.graph(), block)).orElse(null);
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

    /** Sends AddCustomModuleRequest and waits for the answer; false (and Error events) when it failed. */
    private boolean install(ObiSession s, CustomModule m, List<String> apps) {
        String known = s.moduleFailure(m.name());
        if (known != null) {
            return false;   // refused before; retried when the OBI or the application starts over
        }
        String content = Base64.getEncoder().encodeToString(m.content());
        try {
            ModuleSigner.SignedModule signed = modules.signed(m);
            s.client().request(xid -> new AddCustomModuleRequest(xid, m.name(), content, MODULE_CONTENT_TYPE,
                    "base64", m.translation(), signed.version(), signed.signature(), signed.keyId()),
                    Set.of(), true).get(waitMillis(), TimeUnit.MILLISECONDS);
            s.moduleInstalled(m.name());
            log.info("OBI {}: custom module '{}' installed for {}", s.dpid(), m.name(), apps);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof ObiErrorException err && err.errorSubtype() == ErrorSubtype.ILLEGAL_STATE
                    && String.valueOf(err.getMessage()).contains("already")) {
                s.moduleInstalled(m.name());   // still there from before (the OBI did not restart)
                return true;
            }
            ErrorType type = cause instanceof ObiErrorException err ? err.errorType() : ErrorType.INTERNAL_ERROR;
            ErrorSubtype subtype = cause instanceof ObiErrorException err ? err.errorSubtype() : ErrorSubtype.ADD_MODULE_FAILED;
            String why = cause instanceof TimeoutException ? "no answer within " + waitMillis() + " ms" : cause.getMessage();
            String text = "custom module '" + m.name() + "' could not be installed on OBI " + s.dpid() + " (" + why
                    + "); the graph of " + apps + " is not deployed there";
            s.moduleFailed(m.name(), text);
            s.lastError(text);
            log.warn(text);
            events.onObiError(s.dpid(), new ErrorMessage(0, type, subtype, text, null), Set.copyOf(apps));
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Removes modules installed on the OBI that none of its applications needs, once the new graph is in. */
    private void removeUnneeded(ObiSession s, Set<String> needed, CompletableFuture<?> pushed) {
        List<String> unneeded = s.installedModules().stream().filter(m -> !needed.contains(m)).sorted().toList();
        if (unneeded.isEmpty()) {
            return;
        }
        try {
            pushed.get(waitMillis(), TimeUnit.MILLISECONDS);   // the graph that used them must be gone first
        } catch (ExecutionException | TimeoutException e) {
            log.warn("OBI {}: custom modules {} kept: the graph push did not complete", s.dpid(), unneeded);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        for (String m : unneeded) {
            try {
                s.client().request(xid -> new RemoveCustomModuleRequest(xid, m), Set.of(), true)
                        .get(waitMillis(), TimeUnit.MILLISECONDS);
                s.moduleRemoved(m);
                log.info("OBI {}: custom module '{}' removed (no application there needs it)", s.dpid(), m);
            } catch (ExecutionException | TimeoutException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                if (cause instanceof ObiErrorException) {
                    s.moduleRemoved(m);   // the OBI does not have it (any more)
                }
                failed(s, "RemoveCustomModuleRequest " + m, cause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private long waitMillis() {
        return props.requestTimeout().toMillis() + 500;
    }

    private long graphWaitMillis() {
        return props.graphTimeout().toMillis() + 500;
    }

    private CompletableFuture<Message> pushGraph(ObiSession s, DeployedGraph g) {
        s.graphStatus("pushing (" + g.graph().blocks().size() + " blocks)");
        long sent = System.nanoTime();
        CompletableFuture<Message> answer = s.client().request(xid -> new SetProcessingGraphRequest(xid, List.of(),
                        g.graph().blocks(), g.graph().connectors(), null), Set.copyOf(g.apps()), true,
                props.graphTimeout());
        answer.whenComplete((m, e) -> {
                    Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                            ? e.getCause() : e;
                    metrics.graphSwap(s.dpid(), e == null ? "ok" : cause instanceof ObiErrorException ? "refused" : "failed",
                            System.nanoTime() - sent);
                    if (e == null) {
                        s.pushedGraph(g.graph());
                        s.graphStatus("running (" + g.graph().blocks().size() + " blocks)");
                        s.lastError(null);   // an earlier failure is over: the OBI runs its graph
                    } else {
                        s.graphStatus("rejected");
                        failed(s, "SetProcessingGraphRequest", e, props.graphTimeout());
                    }
                });
        s.client().send(BarrierRequest::new, true).whenComplete((m, e) -> {
            if (e != null) {
                failed(s, "BarrierRequest", e);
            }
        });
        return answer;
    }

    private void failed(ObiSession s, String what, Throwable e) {
        failed(s, what, e, props.requestTimeout());
    }

    /** @param limit how long the answer was awaited (named when it did not come) */
    private void failed(ObiSession s, String what, Throwable e, java.time.Duration limit) {
        Throwable cause = e.getCause() != null && !(e instanceof ObiErrorException) ? e.getCause() : e;
        ObiIdentityException identity = ObiIdentityException.find(e);
        if (identity != null) {
            String text = what + " not sent: identity error: " + identity.getMessage();
            s.lastError(text);
            s.graphStatus("identity error");
            log.warn("identity conflict: OBI {} at {}: {}", s.dpid(), s.client().base(), text);
            return;
        }
        String text = what + " failed: " + (cause instanceof java.util.concurrent.TimeoutException
                ? "no answer within " + limit.toMillis() + " ms" : cause.getMessage());
        s.lastError(text);
        log.warn("OBI {}: {}", s.dpid(), text);
    }


    /**
     * Drops the sessions of OBIs that never answered the controller within
     * {@code openbox.limits.setup-timeout} of their Hello, and of OBIs DOWN for longer than
     * {@code openbox.limits.down-expiry}; a later Hello from them starts a new session.
     */
    void expire(long now) {
        long setupTimeout = limits.setupTimeout().toNanos();
        long downExpiry = limits.downExpiry().toNanos();
        for (ObiSession s : sessions.values()) {
            boolean neverSetUp = !s.established() && now - s.createdNanos() > setupTimeout;
            boolean longDown = s.state() == ObiState.DOWN && now - s.stateSinceNanos() > downExpiry;
            if ((neverSetUp || longDown) && sessions.remove(s.dpid(), s)) {
                http.forget(s.client().base(), s.dpid());
                log.info("OBI {}: session dropped ({})", s.dpid(), neverSetUp
                        ? "it never answered within " + limits.setupTimeout().toMillis() + " ms of its Hello"
                        : "down for more than " + limits.downExpiry().toMillis() + " ms");
                if (s.state() == ObiState.UP && s.transition(ObiState.DOWN, Instant.now())) {
                    events.instanceDown(s.dpid());
                }
                pending.failAll(s.dpid(), "its session was dropped");
                setup.execute(() -> {
                    if (!sessions.containsKey(s.dpid())) {
                        aggregator.forget(s.dpid());
                    }
                });
            }
        }
    }

    /** Marks every overdue OBI DOWN and drops expired sessions. Runs on the single sweeper thread. */
    void sweep() {
        try {
            long now = System.nanoTime();
            expire(now);
            for (ObiSession s : sessions.values()) {
                if (s.state() == ObiState.UP && now - s.lastSeenNanos() > deadlineNanos(s)
                        && s.transition(ObiState.DOWN, Instant.now())) {
                    log.warn("OBI {} is down: nothing received for {} ms", s.dpid(), (now - s.lastSeenNanos()) / 1_000_000);
                    events.instanceDown(s.dpid());
                    pending.failAll(s.dpid(), "it is down");
                }
            }
        } catch (RuntimeException e) {
            log.error("deadline sweep failed", e);
        }
    }

    private ObiClient client(long dpid, URI base) {
        http.expect(base, dpid);
        return new ObiClient(dpid, base, http.client(), codec, pending, metrics, props.requestTimeout());
    }

    private URI endpoint(Hello hello, String remoteAddr) {
        String given = hello.sourceAddr();
        // a wildcard listen address says nothing about where the OBI is: use where it spoke from
        boolean usable = given != null && !given.isBlank() && !given.equals("0.0.0.0") && !given.equals("::")
                && !given.equals("[::]");
        String host = usable ? given : remoteAddr;
        int port = hello.sourcePort() != null ? hello.sourcePort() : props.obiPort();
        if (host.contains(":") && !host.startsWith("[")) {
            host = "[" + host + "]";   // IPv6 literal
        }
        return URI.create(http.scheme() + "://" + host + ":" + port);
    }

    private long count(ObiState state) {
        return sessions.values().stream().filter(s -> s.state() == state).count();
    }

    @Override
    public void destroy() {
        sweeper.shutdownNow();
        setup.shutdownNow();
    }
}
