package org.openbox.controller.metrics;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.openbox.catalogue.Catalogue;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.ModuleRegistry;
import org.openbox.controller.apps.PlacedGraph;
import org.openbox.controller.apps.TopologyHolder;
import org.openbox.controller.handles.HandleRouter;
import org.openbox.controller.obi.ObiErrorException;
import org.openbox.controller.obi.ObiRegistry;
import org.openbox.controller.obi.ObiQueries;
import org.openbox.controller.obi.ObiSession;
import org.openbox.controller.obi.ObiState;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;
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
 * <p>Bounded: at most one collection per OBI is in flight (an OBI still answering the previous
 * round is not asked again), and it sends one request at a time (one connection per OBI), the OBIs of a round start one after the other over three
 * quarters of the interval, at most {@code max-in-flight} OBIs are collected at once (the
 * others wait their turn), each collection ends after {@code timeout} (what has
 * not answered is left out, the previous values stay), and OBIs that are DOWN are skipped.
 * Everything runs on the collector's own thread: the southbound threads that take the OBIs'
 * answers only complete futures, and Hello and KeepAlive never wait for it.
 *
 * <p>Its own figures: {@code openbox.metrics.collections{outcome}} (ok, partial: something
 * did not answer; failed: no GlobalStats; skipped: the OBI was down or still busy).
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

    // collector thread only
    private final Deque<Long> waiting = new ArrayDeque<>();
    private final Set<Long> busy = new HashSet<>();   // waiting or in flight
    private int inFlight;

    public ObiMetricsCollector(ObiRegistry obis, ObiQueries queries, HandleRouter handles, GraphAggregator aggregator,
                               AppCatalog catalog, TopologyHolder topology, ModuleRegistry modules,
                               DataPlaneMeters meters, MetricsProperties props, ControllerMetrics metrics) {
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
    }

    @EventListener(ApplicationReadyEvent.class)
    public void start() {
        Optional<Duration> period = props.period();
        if (period.isEmpty()) {
            log.info("data-plane metrics collection is off (openbox.metrics.interval)");
            return;
        }
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
                if (s.state() != ObiState.UP || busy.contains(s.dpid())) {
                    outcome("skipped");
                    continue;
                }
                busy.add(s.dpid());
                due.add(s.dpid());
            }
            meters.retainOnly(known);
            refusedByObi.keySet().retainAll(known);
            long spacing = periodNanos * 3 / 4 / Math.max(1, due.size());
            for (int i = 0; i < due.size(); i++) {
                long dpid = due.get(i);
                thread.schedule(() -> {
                    waiting.add(dpid);
                    startWaiting();
                }, i * spacing, TimeUnit.NANOSECONDS);
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
                done = collect(s.get());
            } catch (RuntimeException e) {
                done = CompletableFuture.failedFuture(e);
            }
            done.whenCompleteAsync((result, e) -> {
                inFlight--;
                busy.remove(dpid);
                outcome(e == null ? result : "failed");
                if (e != null) {
                    log.debug("OBI {}: metrics not collected: {}", dpid, e.toString());
                }
                startWaiting();
            }, thread);
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
        AtomicBoolean over = new AtomicBoolean();   // timed out: ask nothing more
        CompletableFuture<JsonNode> stats = queries.globalStats(s);
        CompletableFuture<Void> chain = stats.handleAsync((st, e) -> {
            if (e == null) {
                samples.addAll(obiSamples(dpid, st));
            }
            return null;
        }, thread);
        DeployedGraph deployed = aggregator.current(dpid);
        Refused refusedHere = refusedByObi.compute(dpid, (k, r) -> r != null && r.graph().equals(deployed.graph()) ? r
                : new Refused(deployed.graph(), ConcurrentHashMap.newKeySet()));
        Catalogue types = modules.catalogue();
        for (String app : deployed.apps()) {
            Optional<AppEntry> entry = catalog.get(app);
            Optional<PlacedGraph> placed = entry.flatMap(e -> e.graphFor(dpid, topology.topology()));
            if (placed.isEmpty()) {
                continue;
            }
            for (Block b : placed.get().graph().blocks()) {
                for (BlockCounters.Read read : BlockCounters.reads(types.find(b.type()).orElse(null), b,
                        props.maxRulesPerBlock())) {
                    List<JsonNode> answers = new ArrayList<>();   // per handle, null: not read
                    for (String h : read.handles()) {
                        String key = app + "/" + b.name() + "/" + h;
                        chain = chain.thenCompose(x -> over.get() || refusedHere.reads().contains(key)
                                ? CompletableFuture.<JsonNode>completedFuture(null)
                                : handles.read(app, b.name(), h, dpid).handle((v, e) -> {
                                    Throwable t = e instanceof CompletionException && e.getCause() != null
                                            ? e.getCause() : e;
                                    if (refused(t)) {
                                        refusedHere.reads().add(key);   // refused for this graph: not asked again
                                    } else if (t != null) {
                                        incomplete.set(true);
                                    }
                                    return e == null ? v : null;
                                })).thenAcceptAsync(answers::add, thread);
                    }
                    chain = chain.thenRunAsync(() -> samples.addAll(BlockCounters.samples(app, b.name(), dpid, read,
                            answers)), thread);
                }
            }
        }
        long timeout = props.timeout().toMillis();
        return chain.orTimeout(timeout, TimeUnit.MILLISECONDS)
                .handleAsync((x, e) -> {
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
                }, thread);
    }

    /**
     * A read refused for the graph the OBI runs: by the OBI (it has no such handle there) or
     * by the controller itself (not the block's to read alone, not at that OBI).
     */
    private static boolean refused(Throwable t) {
        if (t instanceof ObiErrorException err) {
            return err.errorSubtype() == ErrorSubtype.ILLEGAL_ARGUMENT;
        }
        return t instanceof IllegalArgumentException || (t instanceof ProtocolException && !(t instanceof ObiErrorException));
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
                out.add(DataPlaneMeters.Sample.counter("openbox.obi.packets", packets, v.asDouble(),
                        "dpid", obi, "direction", dir));
            }
        }
        for (String dir : List.of("in", "out")) {
            JsonNode v = st.get("bytes_" + dir);
            if (v != null && v.isNumber()) {
                out.add(DataPlaneMeters.Sample.counter("openbox.obi.bytes", bytes, v.asDouble(),
                        "dpid", obi, "direction", dir));
            }
        }
        JsonNode load = st.get("current_load");
        if (load != null && load.isNumber()) {
            out.add(DataPlaneMeters.Sample.gauge("openbox.obi.load", "share of the OBI's worker time spent on packets (0..1)",
                    load.asDouble(), "dpid", obi));
        }
        return out;
    }

    /** Counts one OBI's collection by outcome (the counters made once: registering is a registry look-up). */
    private void outcome(String outcome) {
        outcomes.computeIfAbsent(outcome, o -> Counter.builder("openbox.metrics.collections")
                .description("data-plane metrics collections of one OBI, by outcome")
                .tag("outcome", o).register(metrics.registry())).increment();
    }

    @Override
    public void destroy() {
        thread.shutdownNow();
    }
}
