package org.openbox.controller.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.openbox.catalogue.Catalogue;
import org.openbox.controller.OpenboxProperties;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.ModuleRegistry;
import org.openbox.controller.apps.PlacedGraph;
import org.openbox.controller.apps.TopologyHolder;
import org.openbox.controller.handles.HandleRouter;
import org.openbox.controller.obi.ObiErrorException;
import org.openbox.controller.obi.ObiQueries;
import org.openbox.controller.obi.ObiRegistry;
import org.openbox.controller.obi.ObiSession;
import org.openbox.controller.obi.ObiState;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.message.SetParametersRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Collects the data-plane figures of every OBI that is up, every {@code openbox.metrics.interval}:
 * its GlobalStats ({@code openbox.obi.packets{dpid,direction}}, {@code openbox.obi.bytes},
 * {@code openbox.obi.load}) and, for each application running there, the counter handles of
 * each of its blocks read at that OBI as the application sees them ({@link BlockCounters}).
 * Only reads: GlobalStatsRequest and ReadRequest, never a reset or a write.
 *
 * <p><b>On KeepAlive</b> ({@code openbox.metrics.push}, on by default): instead of asking every
 * round, the collector subscribes each OBI once per graph (a SetParametersRequest with the
 * {@code metrics_subscription} parameter: the merged blocks' counter handles to read, see
 * {@link MetricsPlan}, and the interval) and the OBI attaches those figures and its GlobalStats
 * to the first KeepAlive of each interval; a round then sends nothing to it. It subscribes
 * again when the OBI's graph changes, when it said Hello again, and when no figures came for
 * two intervals and two KeepAlive intervals. An OBI that refuses the parameter
 * (ILLEGAL_ARGUMENT: it does not know it) is collected with GlobalStats and Read requests as
 * below, until its next Hello. Both paths give the same samples.
 *
 * <p>Bounded: at most one collection per OBI is in flight (an OBI still answering the previous
 * round is not asked again), and it sends one request at a time (one connection per OBI), the OBIs of a round start one after the other over three
 * quarters of the interval, at most {@code max-in-flight} OBIs are collected at once (the
 * others wait their turn), each collection ends after {@code timeout} (what has
 * not answered is left out, the previous values stay), and OBIs that are DOWN are skipped.
 * Everything runs on the collector's own thread: the southbound threads that take the OBIs'
 * answers only complete futures, and Hello and KeepAlive never wait for it.
 *
 * <p>Its own figures: {@code openbox.metrics.collections{outcome}} (ok, partial: something
 * did not answer; failed: no GlobalStats; skipped: the OBI was down or still busy; subscribed:
 * a metrics subscription was sent) and {@code openbox.metrics.paths{path}} (OBIs collected
 * on KeepAlive and by request).
 */
@Component
public class ObiMetricsCollector implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(ObiMetricsCollector.class);

    private final ObiRegistry obis;
    private final ObiQueries queries;
    private final HandleRouter handles;
    private final GraphAggregator aggregator;
    private final AppCatalog catalog;
    private final TopologyHolder topology;
    private final ModuleRegistry modules;
    private final DataPlaneMeters meters;
    private final MetricsProperties props;
    private final ControllerMetrics metrics;
    private final OpenboxProperties openbox;
    // ids from the clock, so an OBI still holding a subscription of an earlier controller run never matches a new one
    private final AtomicLong subscriptionIds = new AtomicLong(System.currentTimeMillis() << 10);
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "obi-metrics");
        t.setDaemon(true);
        return t;
    });

    /**
     * Per OBI, the reads refused for the graph it runs ("app/block/handle"), by the OBI (e.g.
     * FromDevice's {@code offloads} where the device is a pcap file, which FromDump does not
     * count) or by the controller (a shared block): not tried again until its graph changes.
     */
    private final Map<Long, Refused> refusedByObi = new ConcurrentHashMap<>();

    private record Refused(Object graph, Set<String> reads) {}

    private final Map<String, Counter> outcomes = new ConcurrentHashMap<>();

    /**
     * Per OBI, its metrics subscription: for which session, Hello and graph, with which plan
     * and id; {@code unsupported} when the OBI refused it (collected by request instead).
     */
    private static final class Subscription {
        final ObiSession session;
        final int generation;
        final Object graph;
        final MetricsPlan plan;
        final long id;
        volatile boolean accepted;
        volatile boolean delivered; // figures came on a KeepAlive
        volatile boolean unsupported;
        volatile long lastNanos; // subscribed, or figures last received

        Subscription(ObiSession session, Object graph, MetricsPlan plan, long id) {
            this.session = session;
            this.generation = session.generation();
            this.graph = graph;
            this.plan = plan;
            this.id = id;
            this.lastNanos = System.nanoTime();
        }

        boolean current(ObiSession s, Object g) {
            return sameHello(s) && graph.equals(g);
        }

        boolean sameHello(ObiSession s) {
            return session == s && generation == s.generation();
        }
    }

    private final Map<Long, Subscription> subscriptions = new ConcurrentHashMap<>();

    // collector thread only
    private final Deque<Long> waiting = new ArrayDeque<>();
    private final Set<Long> busy = new HashSet<>(); // waiting or in flight
    private int inFlight;

    public ObiMetricsCollector(
            ObiRegistry obis,
            ObiQueries queries,
            HandleRouter handles,
            GraphAggregator aggregator,
            AppCatalog catalog,
            TopologyHolder topology,
            ModuleRegistry modules,
            DataPlaneMeters meters,
            MetricsProperties props,
            ControllerMetrics metrics,
            OpenboxProperties openbox) {
        this.obis = obis;
        this.queries = queries;
        this.handles = handles;
        this.aggregator = aggregator;
        this.catalog = catalog;
        this.topology = topology;
        this.modules = modules;
        this.meters = meters;
        this.props = props;
        this.metrics = metrics;
        this.openbox = openbox;
    }

    @EventListener(ApplicationReadyEvent.class)
    public void start() {
        Optional<Duration> period = props.period();
        if (period.isEmpty()) {
            log.info("data-plane metrics collection is off (openbox.metrics.interval)");
            return;
        }
        log.info(
                "data-plane metrics every {} ({})",
                period.get(),
                props.push()
                        ? "on the OBIs' KeepAlives where they support it, else by GlobalStats and Read requests"
                        : "by GlobalStats and Read requests");
        long ms = Math.max(1, period.get().toMillis());
        thread.scheduleAtFixedRate(() -> round(TimeUnit.MILLISECONDS.toNanos(ms)), ms, ms, TimeUnit.MILLISECONDS);
    }

    /**
     * One round: every OBI that is up and not still busy is due, their starts spread evenly
     * over the first three quarters of the interval (no burst of requests, nor of answers
     * arriving beside the OBIs' KeepAlives). Collector thread.
     */
    private void round(long periodNanos) {
        try {
            Set<Long> known = new HashSet<>();
            List<Long> due = new ArrayList<>();
            for (ObiSession s : obis.sessions()) {
                known.add(s.dpid());
                if (s.state() == ObiState.UP && pushing(s, periodNanos)) {
                    continue; // its figures come with its KeepAlives
                }
                if (s.state() != ObiState.UP || busy.contains(s.dpid())) {
                    outcome("skipped");
                    continue;
                }
                busy.add(s.dpid());
                due.add(s.dpid());
            }
            meters.retainOnly(known);
            refusedByObi.keySet().retainAll(known);
            subscriptions.keySet().retainAll(known);
            long spacing = periodNanos * 3 / 4 / Math.max(1, due.size());
            for (int i = 0; i < due.size(); i++) {
                long dpid = due.get(i);
                thread.schedule(
                        () -> {
                            waiting.add(dpid);
                            startWaiting();
                        },
                        i * spacing,
                        TimeUnit.NANOSECONDS);
            }
        } catch (RuntimeException e) {
            log.warn("metrics collection round failed: {}", e.toString());
        }
    }

    private void startWaiting() {
        while (inFlight < props.maxInFlight() && !waiting.isEmpty()) {
            long dpid = waiting.poll();
            Optional<ObiSession> s = obis.session(dpid).filter(x -> x.state() == ObiState.UP);
            if (s.isEmpty()) {
                busy.remove(dpid);
                outcome("skipped");
                continue;
            }
            inFlight++;
            CompletableFuture<String> done;
            try {
                done = props.push() ? subscribeOrCollect(s.get()) : collect(s.get());
            } catch (RuntimeException e) {
                done = CompletableFuture.failedFuture(e);
            }
            done.whenCompleteAsync(
                    (result, e) -> {
                        inFlight--;
                        busy.remove(dpid);
                        outcome(e == null ? result : "failed");
                        if (e == null && !"subscribed".equals(result)) {
                            path("request");
                        }
                        if (e != null) {
                            log.debug("OBI {}: metrics not collected: {}", dpid, e.toString());
                        }
                        startWaiting();
                    },
                    thread);
        }
    }

    /**
     * Whether the OBI's figures come with its KeepAlives: subscribed for the graph it runs
     * since its last Hello, accepted, and heard from recently. Collector thread.
     */
    private boolean pushing(ObiSession s, long periodNanos) {
        if (!props.push()) {
            return false;
        }
        Subscription sub = subscriptions.get(s.dpid());
        if (sub == null
                || sub.unsupported
                || !sub.accepted
                || !sub.current(s, aggregator.current(s.dpid()).graph())) {
            return false;
        }
        return System.nanoTime() - sub.lastNanos <= staleNanos(periodNanos);
    }

    /**
     * How long a subscribed OBI may send no figures: two subscription intervals (whole
     * seconds, at least one) and two KeepAlive intervals, since figures ride on KeepAlives.
     */
    private long staleNanos(long periodNanos) {
        long interval = Math.max(TimeUnit.SECONDS.toNanos(1), periodNanos);
        return 2 * interval + 2 * TimeUnit.SECONDS.toNanos(openbox.keepaliveIntervalSeconds());
    }

    /**
     * An OBI that is not (or no longer) sending its figures on KeepAlive: subscribes it (one
     * SetParametersRequest), or collects it by request when it refused the subscription, or
     * when its graph is beyond the OBI's bounds on one. Collector thread.
     */
    private CompletableFuture<String> subscribeOrCollect(ObiSession s) {
        long dpid = s.dpid();
        DeployedGraph deployed = aggregator.current(dpid);
        Subscription sub = subscriptions.get(dpid);
        if (sub != null && sub.current(s, deployed.graph()) && sub.accepted && !sub.delivered && !sub.unsupported) {
            // accepted, yet no KeepAlive carried figures: an OBI that takes parameters it does not know
            sub.unsupported = true;
            log.info(
                    "OBI {} accepted a metrics subscription but attached no figures to its KeepAlives: collected by"
                            + " GlobalStats and Read requests",
                    dpid);
        }
        if (sub != null && sub.unsupported && sub.sameHello(s)) {
            return collect(s); // until the OBI says Hello again (it may have been upgraded)
        }
        MetricsPlan plan = MetricsPlan.build(
                dpid, deployed, catalog, topology, modules.catalogue(), handles, props.maxRulesPerBlock());
        if (!plan.fitsObi()) {
            log.debug(
                    "OBI {}: {} handles are beyond a metrics subscription; collected by request",
                    dpid,
                    plan.handleCount());
            return collect(s);
        }
        Subscription next = new Subscription(s, deployed.graph(), plan, subscriptionIds.incrementAndGet());
        subscriptions.put(dpid, next);
        ObjectNode params = JsonNodeFactory.instance.objectNode();
        params.set(
                "metrics_subscription",
                plan.subscription(next.id, props.period().orElseThrow()));
        return s.client()
                .request(xid -> new SetParametersRequest(xid, params), Set.of(), false)
                .handleAsync(
                        (m, e) -> {
                            Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                            if (t == null) {
                                next.accepted = true;
                                next.lastNanos = System.nanoTime();
                                return CompletableFuture.completedFuture("subscribed");
                            }
                            if (t instanceof ObiErrorException err
                                    && err.errorSubtype() == ErrorSubtype.ILLEGAL_ARGUMENT) {
                                next.unsupported = true;
                                log.info(
                                        "OBI {} does not take a metrics subscription ({}): collected by GlobalStats and"
                                                + " Read requests",
                                        dpid,
                                        err.getMessage());
                                return collect(s);
                            }
                            subscriptions.remove(dpid, next);
                            return CompletableFuture.<String>failedFuture(t);
                        },
                        thread)
                .thenCompose(x -> x);
    }

    /**
     * The figures an OBI attached to its KeepAlive ({@code metrics}): into the meters, on the
     * collector thread. Figures for another subscription than the current one (sent before
     * the OBI took a newer one) are dropped. Called by the southbound threads.
     */
    public void onKeepAliveMetrics(long dpid, ObjectNode figures) {
        try {
            thread.execute(() -> applyPushed(dpid, figures));
        } catch (RejectedExecutionException e) {
            log.debug("OBI {}: metrics dropped, the collector is stopping", dpid);
        }
    }

    private void applyPushed(long dpid, ObjectNode figures) {
        try {
            Subscription sub = subscriptions.get(dpid);
            long id = figures.path("subscription").asLong(-1);
            if (sub == null || sub.unsupported || sub.id != id) {
                log.debug(
                        "OBI {}: KeepAlive metrics for subscription {} ignored (current: {})",
                        dpid,
                        id,
                        sub == null ? "none" : sub.id);
                return;
            }
            sub.accepted = true; // its figures may overtake the SetParametersResponse
            sub.delivered = true;
            sub.lastNanos = System.nanoTime();
            MetricsPlan.Result r = sub.plan.samples(dpid, figures);
            meters.update(dpid, r.samples(), r.complete());
            outcome(r.complete() ? "ok" : "partial");
            path("keepalive");
        } catch (RuntimeException e) {
            log.warn("OBI {}: KeepAlive metrics not taken: {}", dpid, e.toString());
        }
    }

    /**
     * Reads one OBI, one request after the other (GlobalStats, then each counter handle), so
     * a collection holds one connection to the OBI, the one the client pools between rounds,
     * and never takes more than one of the OBI's connection threads; completes with the
     * outcome once its values are in the meters. Collector thread.
     */
    private CompletableFuture<String> collect(ObiSession s) {
        long dpid = s.dpid();
        List<DataPlaneMeters.Sample> samples = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean incomplete = new AtomicBoolean();
        AtomicBoolean over = new AtomicBoolean(); // timed out: ask nothing more
        CompletableFuture<JsonNode> stats = queries.globalStats(s);
        CompletableFuture<Void> chain = stats.handleAsync(
                (st, e) -> {
                    if (e == null) {
                        samples.addAll(obiSamples(dpid, st));
                    }
                    return null;
                },
                thread);
        DeployedGraph deployed = aggregator.current(dpid);
        Refused refusedHere = refusedByObi.compute(
                dpid,
                (k, r) -> r != null && r.graph().equals(deployed.graph())
                        ? r
                        : new Refused(deployed.graph(), ConcurrentHashMap.newKeySet()));
        Catalogue types = modules.catalogue();
        for (String app : deployed.apps()) {
            Optional<AppEntry> entry = catalog.get(app);
            Optional<PlacedGraph> placed = entry.flatMap(e -> e.graphFor(dpid, topology.topology()));
            if (placed.isEmpty()) {
                continue;
            }
            for (Block b : placed.get().graph().blocks()) {
                for (BlockCounters.Read read :
                        BlockCounters.reads(types.find(b.type()).orElse(null), b, props.maxRulesPerBlock())) {
                    List<JsonNode> answers = new ArrayList<>(); // per handle, null: not read
                    for (String h : read.handles()) {
                        String key = app + "/" + b.name() + "/" + h;
                        chain = chain.thenCompose(x -> over.get()
                                                || refusedHere.reads().contains(key)
                                        ? CompletableFuture.<JsonNode>completedFuture(null)
                                        : handles.read(app, b.name(), h, dpid).handle((v, e) -> {
                                            Throwable t = e instanceof CompletionException && e.getCause() != null
                                                    ? e.getCause()
                                                    : e;
                                            if (refused(t)) {
                                                refusedHere.reads().add(key); // refused for this graph: not asked again
                                            } else if (t != null) {
                                                incomplete.set(true);
                                            }
                                            return e == null ? v : null;
                                        }))
                                .thenAcceptAsync(answers::add, thread);
                    }
                    chain = chain.thenRunAsync(
                            () -> samples.addAll(BlockCounters.samples(app, b.name(), dpid, read, answers)), thread);
                }
            }
        }
        long timeout = props.timeout().toMillis();
        return chain.orTimeout(timeout, TimeUnit.MILLISECONDS)
                .handleAsync(
                        (x, e) -> {
                            over.set(true);
                            boolean gotStats = stats.isDone() && !stats.isCompletedExceptionally();
                            boolean complete = e == null && gotStats && !incomplete.get();
                            List<DataPlaneMeters.Sample> got;
                            synchronized (samples) {
                                got = List.copyOf(samples);
                            }
                            meters.update(dpid, got, complete);
                            if (!gotStats) {
                                throw new CompletionException(new IllegalStateException(
                                        "OBI " + dpid + ": no GlobalStats within " + timeout + " ms"));
                            }
                            return complete ? "ok" : "partial";
                        },
                        thread);
    }

    /**
     * A read refused for the graph the OBI runs: by the OBI (it has no such handle there) or
     * by the controller itself (not the block's to read alone, not at that OBI).
     */
    private static boolean refused(Throwable t) {
        if (t instanceof ObiErrorException err) {
            return err.errorSubtype() == ErrorSubtype.ILLEGAL_ARGUMENT;
        }
        return t instanceof IllegalArgumentException
                || (t instanceof ProtocolException && !(t instanceof ObiErrorException));
    }

    /** GlobalStats as samples: packets and bytes in, out and dropped, load. */
    static List<DataPlaneMeters.Sample> obiSamples(long dpid, JsonNode st) {
        String obi = Long.toString(dpid);
        List<DataPlaneMeters.Sample> out = new ArrayList<>();
        String packets = "packets the OBI received, sent and dropped (GlobalStats)";
        String bytes = "bytes the OBI received and sent (GlobalStats)";
        for (String dir : List.of("in", "out", "dropped")) {
            JsonNode v = st.get("packets_" + dir);
            if (v != null && v.isNumber()) {
                out.add(DataPlaneMeters.Sample.counter(
                        "openbox.obi.packets", packets, v.asDouble(), "dpid", obi, "direction", dir));
            }
        }
        for (String dir : List.of("in", "out")) {
            JsonNode v = st.get("bytes_" + dir);
            if (v != null && v.isNumber()) {
                out.add(DataPlaneMeters.Sample.counter(
                        "openbox.obi.bytes", bytes, v.asDouble(), "dpid", obi, "direction", dir));
            }
        }
        JsonNode load = st.get("current_load");
        if (load != null && load.isNumber()) {
            out.add(DataPlaneMeters.Sample.gauge(
                    "openbox.obi.load",
                    "share of the OBI's worker time spent on packets (0..1)",
                    load.asDouble(),
                    "dpid",
                    obi));
        }
        return out;
    }

    /** Counts one OBI's collection by outcome (the counters made once: registering is a registry look-up). */
    private void outcome(String outcome) {
        outcomes.computeIfAbsent(outcome, o -> Counter.builder("openbox.metrics.collections")
                        .description("data-plane metrics collections of one OBI, by outcome")
                        .tag("outcome", o)
                        .register(metrics.registry()))
                .increment();
    }

    private final Map<String, Counter> paths = new ConcurrentHashMap<>();

    /** Counts one OBI's figures taken, by the way they came. */
    private void path(String path) {
        paths.computeIfAbsent(path, p -> Counter.builder("openbox.metrics.paths")
                        .description(
                                "data-plane figures of one OBI taken, by path (keepalive: attached to its KeepAlive;"
                                        + " request: GlobalStats and Read requests)")
                        .tag("path", p)
                        .register(metrics.registry()))
                .increment();
    }

    @Override
    public void destroy() {
        thread.shutdownNow();
    }
}
