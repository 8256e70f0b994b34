package org.openbox.controller.obi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Gauge;
import java.net.URI;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.openbox.controller.OpenboxProperties;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.apps.AppsChanged;
import org.openbox.controller.events.AppEvents;
import org.openbox.controller.metrics.ControllerMetrics;
import org.openbox.controller.southbound.Rejection;
import org.openbox.protocol.ErrorSubtype;
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
 *     (InstanceDown to the applications concerned). No thread or timer per OBI.</li>
 * <li>Return: a Hello or any other message from a DOWN OBI brings it UP again
 *     (InstanceUp) and its full state is pushed again. A KeepAlive from a dpid the
 *     controller never saw (e.g. after a controller restart) is refused with
 *     BAD_REQUEST / ILLEGAL_STATE so the OBI starts over with Hello.</li>
 * <li>Application changes: every OBI's graph is recomputed; changed graphs are pushed to
 *     the OBIs that are UP (the others get theirs when they return).</li>
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
    private final GraphAggregator aggregator;
    private final AppEvents events;
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
                      OpenboxProperties props, GraphAggregator aggregator, AppEvents events) {
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

    public void onHello(Hello hello, String remoteAddr) {
        URI base = endpoint(hello, remoteAddr);
        Instant now = Instant.now();
        long nanos = System.nanoTime();
        boolean[] created = {false};
        ObiSession s = sessions.compute(hello.dpid(), (dpid, existing) -> {
            if (existing == null) {
                created[0] = true;
                return new ObiSession(dpid, client(dpid, base), now, nanos);
            }
            if (!existing.client().base().equals(base)) {
                existing.client(client(dpid, base));
            }
            return existing;
        });
        s.hello(hello.version(), hello.capabilities());
        s.seen(now, nanos);
        boolean cameBack = s.transition(ObiState.UP, now);
        log.info("OBI {} said Hello (version {}, endpoint {}){}", hello.dpid(), hello.version(), base,
                created[0] ? "" : cameBack ? ", back up" : ", again");
        if (created[0] || cameBack) {
            events.instanceUp(hello.dpid());
        }
        setup.execute(() -> pushState(s));
    }

    /** KeepAlive: refused for an unknown dpid (the OBI has to say Hello first). */
    public Optional<Rejection> onKeepAlive(long dpid) {
        if (!sessions.containsKey(dpid)) {
            return Optional.of(new Rejection(ErrorSubtype.ILLEGAL_STATE,
                    "unknown dpid " + dpid + ": send Hello first"));
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
            setup.execute(() -> pushState(s));
        }
    }

    @EventListener
    public void onAppsChanged(AppsChanged change) {
        setup.execute(this::refreshAll);
    }

    /** Recomputes every OBI's graph and pushes those that changed to OBIs that are UP. */
    public void refreshAll() {
        for (ObiSession s : sessions.values()) {
            Optional<DeployedGraph> changed = aggregator.refresh(s.dpid());
            if (changed.isPresent() && s.state() == ObiState.UP) {
                pushGraph(s, changed.get());
            }
        }
    }

    /** Full state for a (re)connected OBI: parameters, graph, barrier. Runs on the set-up thread. */
    private void pushState(ObiSession s) {
        try {
            pushStateNow(s);
        } catch (RuntimeException e) {
            failed(s, "connection set-up", e);
        }
    }

    private void pushStateNow(ObiSession s) {
        ObjectNode params = codec.mapper().createObjectNode();
        params.put("keepalive_interval", props.keepaliveIntervalSeconds());
        s.client().request(xid -> new SetParametersRequest(xid, params), Set.of(), true)
                .whenComplete((m, e) -> {
                    if (e != null) {
                        failed(s, "SetParametersRequest", e);
                    }
                });
        aggregator.refresh(s.dpid());
        DeployedGraph g = aggregator.current(s.dpid());
        if (!g.isEmpty()) {
            pushGraph(s, g);
        }
    }

    private void pushGraph(ObiSession s, DeployedGraph g) {
        s.graphStatus("pushing (" + g.graph().blocks().size() + " blocks)");
        s.client().request(xid -> new SetProcessingGraphRequest(xid, List.of(), g.graph().blocks(),
                        g.graph().connectors(), null), Set.copyOf(g.apps()), true)
                .whenComplete((m, e) -> {
                    if (e == null) {
                        s.graphStatus("running (" + g.graph().blocks().size() + " blocks)");
                    } else {
                        s.graphStatus("rejected");
                        failed(s, "SetProcessingGraphRequest", e);
                    }
                });
        s.client().send(BarrierRequest::new, true).whenComplete((m, e) -> {
            if (e != null) {
                failed(s, "BarrierRequest", e);
            }
        });
    }

    private void failed(ObiSession s, String what, Throwable e) {
        Throwable cause = e.getCause() != null && !(e instanceof ObiErrorException) ? e.getCause() : e;
        String text = what + " failed: " + (cause instanceof java.util.concurrent.TimeoutException
                ? "no answer within " + props.requestTimeout().toMillis() + " ms" : cause.getMessage());
        s.lastError(text);
        log.warn("OBI {}: {}", s.dpid(), text);
    }

    /** Marks every overdue OBI DOWN. Runs on the single sweeper thread. */
    void sweep() {
        try {
            long now = System.nanoTime();
            long timeout = props.keepaliveTimeout().toNanos();
            for (ObiSession s : sessions.values()) {
                if (s.state() == ObiState.UP && now - s.lastSeenNanos() > timeout
                        && s.transition(ObiState.DOWN, Instant.now())) {
                    log.warn("OBI {} is down: nothing received for {} ms", s.dpid(), (now - s.lastSeenNanos()) / 1_000_000);
                    events.instanceDown(s.dpid());
                }
            }
        } catch (RuntimeException e) {
            log.error("deadline sweep failed", e);
        }
    }

    private ObiClient client(long dpid, URI base) {
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
        return URI.create("http://" + host + ":" + port);
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
