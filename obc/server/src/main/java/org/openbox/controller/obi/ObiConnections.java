package org.openbox.controller.obi;

import java.net.URI;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.openbox.controller.LimitsProperties;
import org.openbox.controller.events.AppEvents;
import org.openbox.controller.southbound.Rejection;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.message.Hello;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * What the controller admits from OBIs. Hello registers the OBI, or renews its session, and
 * starts its set-up on the deployment thread ({@link GraphDeployment#connect}):
 * SetParametersRequest, its modules and merged graph, BarrierRequest. A KeepAlive from a
 * dpid the controller never saw (e.g. after a controller restart) is refused with
 * BAD_REQUEST / ILLEGAL_STATE so the OBI starts over with Hello.
 */
@Service
public class ObiConnections {

    private static final Logger log = LoggerFactory.getLogger(ObiConnections.class);

    private final ObiRegistry registry;
    private final ObiLiveness liveness;
    private final GraphDeployment deployment;
    private final AppEvents events;
    private final PendingRequests pending;
    private final LimitsProperties limits;

    public ObiConnections(
            ObiRegistry registry,
            ObiLiveness liveness,
            GraphDeployment deployment,
            AppEvents events,
            PendingRequests pending,
            LimitsProperties limits) {
        this.registry = registry;
        this.liveness = liveness;
        this.deployment = deployment;
        this.events = events;
        this.pending = pending;
        this.limits = limits;
    }

    /**
     * Hello: registers the OBI, or renews its session. Refused (the live session is kept) when
     * the dpid has a live session (UP, heard from within the keep-alive timeout) at another
     * endpoint (source_addr/source_port or the address the Hello came from): FORBIDDEN /
     * NOT_PERMITTED, logged as a conflict. A new dpid beyond {@code openbox.limits.max-obis}
     * sessions is refused with BAD_REQUEST / ILLEGAL_STATE.
     */
    public Optional<Rejection> onHello(Hello hello, String remoteAddr) {
        URI base = registry.endpoint(hello, remoteAddr);
        Instant now = Instant.now();
        long nanos = System.nanoTime();
        if (!registry.contains(hello.dpid()) && registry.size() >= limits.maxObis()) {
            liveness.expire(nanos);
        }
        boolean[] created = {false};
        Rejection[] refused = {null};
        ObiSession s = registry.compute(hello.dpid(), (dpid, existing) -> {
            if (existing == null) {
                if (registry.size() >= limits.maxObis()) {
                    refused[0] = new Rejection(
                            ErrorSubtype.ILLEGAL_STATE,
                            "the controller holds the maximum of " + limits.maxObis()
                                    + " OBI sessions; Hello for new dpid " + dpid + " refused");
                    return null;
                }
                created[0] = true;
                return new ObiSession(dpid, registry.client(dpid, base), remoteAddr, now, nanos);
            }
            boolean sameEndpoint =
                    existing.client().base().equals(base) && Objects.equals(existing.remoteAddr(), remoteAddr);
            if (!sameEndpoint && liveness.alive(existing, nanos)) {
                log.warn(
                        "conflict: Hello for live OBI {} from endpoint {} (sent from {}) refused; its session stays at {}"
                                + " (sent from {})",
                        dpid,
                        base,
                        remoteAddr,
                        existing.client().base(),
                        existing.remoteAddr());
                refused[0] = new Rejection(
                        ErrorSubtype.NOT_PERMITTED,
                        "dpid " + dpid
                                + " is connected from another endpoint; a new endpoint is taken only after that session times out");
                return existing;
            }
            if (!sameEndpoint) {
                registry.move(existing, base, remoteAddr);
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
        s.intervalTaken(false); // a (re)started OBI sends at the default interval until told another
        s.seen(now, nanos);
        boolean cameBack = s.transition(ObiState.UP, now);
        log.info(
                "OBI {} said Hello (version {}, endpoint {}){}",
                hello.dpid(),
                hello.version(),
                base,
                created[0] ? "" : cameBack ? ", back up" : ", again");
        if (created[0] || cameBack) {
            events.instanceUp(hello.dpid());
        }
        if (!created[0]) {
            pending.failAll(hello.dpid(), "it said Hello again (a new start forgets earlier requests)");
            s.helloAgain(); // before the set-up: what it was told since the last Hello is gone
        }
        deployment.connect(s, true);
        return Optional.empty();
    }

    /**
     * KeepAlive: refused for an unknown dpid (the OBI has to say Hello first), and from an
     * address other than the session's (FORBIDDEN / NOT_PERMITTED: it does not keep the
     * session alive).
     */
    public Optional<Rejection> onKeepAlive(long dpid, String remoteAddr) {
        if (!registry.contains(dpid)) {
            return Optional.of(
                    new Rejection(ErrorSubtype.ILLEGAL_STATE, "unknown dpid " + dpid + ": send Hello first"));
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
        return registry.contains(dpid) ? fromSessionAddress(dpid, remoteAddr, what) : Optional.empty();
    }

    private Optional<Rejection> fromSessionAddress(long dpid, String remoteAddr, String what) {
        ObiSession s = registry.session(dpid).orElse(null);
        if (s != null && !Objects.equals(s.remoteAddr(), remoteAddr)) {
            log.warn(
                    "conflict: {} for OBI {} from {} ignored; its session is at {}",
                    what,
                    dpid,
                    remoteAddr,
                    s.remoteAddr());
            return Optional.of(
                    new Rejection(ErrorSubtype.NOT_PERMITTED, "dpid " + dpid + " is connected from another address"));
        }
        liveness.seen(dpid);
        return Optional.empty();
    }
}
