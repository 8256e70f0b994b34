package org.openbox.controller.obi;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import org.openbox.controller.LimitsProperties;
import org.openbox.controller.OpenboxProperties;
import org.openbox.controller.events.AppEvents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Service;

/**
 * Liveness of the OBIs. Every message from an OBI moves its deadline; one task on the
 * deadline scheduler ({@link ObiThreads#deadlines()}) checks all deadlines every
 * {@code openbox.deadline-check-interval} and marks overdue OBIs DOWN (InstanceDown to the
 * applications concerned). No thread or timer per OBI. The deadline is
 * {@code openbox.keepalive-timeout} once the OBI has accepted the keepalive_interval
 * (SetParametersResponse, or its endpoint is unreachable); from its Hello until then the OBI
 * sends at the spec's default 10 s and is given three of those, so a slow set-up (many OBIs
 * starting at once) does not make it DOWN. Any message from a DOWN OBI brings it UP again
 * (InstanceUp) and its full state is pushed again. Sessions that never got set up within
 * {@code openbox.limits.setup-timeout}, or DOWN for longer than
 * {@code openbox.limits.down-expiry}, are dropped.
 */
@Service
public class ObiLiveness implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(ObiLiveness.class);

    private final ObiRegistry registry;
    private final GraphDeployment deployment;
    private final AppEvents events;
    private final PendingRequests pending;
    private final OpenboxProperties props;
    private final LimitsProperties limits;
    private final ScheduledFuture<?> sweeper;

    public ObiLiveness(
            ObiRegistry registry,
            GraphDeployment deployment,
            AppEvents events,
            PendingRequests pending,
            OpenboxProperties props,
            LimitsProperties limits,
            ObiThreads threads) {
        this.registry = registry;
        this.deployment = deployment;
        this.events = events;
        this.pending = pending;
        this.props = props;
        this.limits = limits;
        Duration tick =
                Duration.ofMillis(Math.max(1, props.deadlineCheckInterval().toMillis()));
        this.sweeper = threads.deadlines()
                .scheduleWithFixedDelay(this::sweep, Instant.now().plus(tick), tick);
    }

    /** UP and heard from within its deadline. */
    boolean alive(ObiSession s, long nowNanos) {
        return s.state() == ObiState.UP && nowNanos - s.lastSeenNanos() <= deadlineNanos(s);
    }

    /** How long the OBI may stay silent (see the class comment). */
    private long deadlineNanos(ObiSession s) {
        return (s.intervalTaken() ? props.keepaliveTimeout() : props.keepaliveTimeoutBeforeSet()).toNanos();
    }

    /** Any message from a known OBI: moves its deadline; a DOWN OBI comes back. */
    public void seen(long dpid) {
        ObiSession s = registry.session(dpid).orElse(null);
        if (s == null) {
            return;
        }
        Instant now = Instant.now();
        s.seen(now, System.nanoTime());
        if (s.state() == ObiState.DOWN && s.transition(ObiState.UP, now)) {
            log.info("OBI {} is back up", dpid);
            events.instanceUp(dpid);
            deployment.connect(s, false);
        }
    }

    /**
     * Drops the sessions of OBIs that never answered the controller within
     * {@code openbox.limits.setup-timeout} of their Hello, and of OBIs DOWN for longer than
     * {@code openbox.limits.down-expiry}; a later Hello from them starts a new session.
     */
    void expire(long now) {
        long setupTimeout = limits.setupTimeout().toNanos();
        long downExpiry = limits.downExpiry().toNanos();
        for (ObiSession s : registry.all()) {
            boolean neverSetUp = !s.established() && now - s.createdNanos() > setupTimeout;
            boolean longDown = s.state() == ObiState.DOWN && now - s.stateSinceNanos() > downExpiry;
            if ((neverSetUp || longDown) && registry.remove(s)) {
                log.info(
                        "OBI {}: session dropped ({})",
                        s.dpid(),
                        neverSetUp
                                ? "it never answered within "
                                        + limits.setupTimeout().toMillis() + " ms of its Hello"
                                : "down for more than " + limits.downExpiry().toMillis() + " ms");
                if (s.state() == ObiState.UP && s.transition(ObiState.DOWN, Instant.now())) {
                    events.instanceDown(s.dpid());
                }
                pending.failAll(s.dpid(), "its session was dropped");
                deployment.forget(s.dpid());
            }
        }
    }

    /** Marks every overdue OBI DOWN and drops expired sessions. */
    void sweep() {
        try {
            long now = System.nanoTime();
            expire(now);
            for (ObiSession s : registry.all()) {
                if (s.state() == ObiState.UP
                        && now - s.lastSeenNanos() > deadlineNanos(s)
                        && s.transition(ObiState.DOWN, Instant.now())) {
                    log.warn(
                            "OBI {} is down: nothing received for {} ms",
                            s.dpid(),
                            (now - s.lastSeenNanos()) / 1_000_000);
                    events.instanceDown(s.dpid());
                    pending.failAll(s.dpid(), "it is down");
                }
            }
        } catch (RuntimeException e) {
            log.error("deadline sweep failed", e);
        }
    }

    @Override
    public void destroy() {
        sweeper.cancel(false);
    }
}
