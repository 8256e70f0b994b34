package org.openbox.controller.obi;

import io.micrometer.core.instrument.Gauge;
import java.net.URI;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.openbox.controller.OpenboxProperties;
import org.openbox.controller.metrics.ControllerMetrics;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.message.Hello;
import org.springframework.stereotype.Service;

/**
 * The OBI sessions by dpid, and the client that reaches each OBI at its endpoint
 * ({@code source_addr}/{@code source_port} of its Hello; the request's address when
 * source_addr is absent or a wildcard, {@code openbox.obi-port} when source_port is absent).
 * Publishes the gauge {@code openbox.obis} by state.
 */
@Service
public class ObiRegistry {

    private final ConcurrentHashMap<Long, ObiSession> sessions = new ConcurrentHashMap<>();
    private final ObiHttp http;
    private final MessageCodec codec;
    private final PendingRequests pending;
    private final ControllerMetrics metrics;
    private final OpenboxProperties props;

    public ObiRegistry(
            ObiHttp http,
            MessageCodec codec,
            PendingRequests pending,
            ControllerMetrics metrics,
            OpenboxProperties props) {
        this.http = http;
        this.codec = codec;
        this.pending = pending;
        this.metrics = metrics;
        this.props = props;
        Gauge.builder("openbox.obis", sessions, s -> count(ObiState.UP))
                .tag("state", "up")
                .description("OBIs by state")
                .register(metrics.registry());
        Gauge.builder("openbox.obis", sessions, s -> count(ObiState.DOWN))
                .tag("state", "down")
                .description("OBIs by state")
                .register(metrics.registry());
    }

    /** Every session, by dpid. */
    public Collection<ObiSession> sessions() {
        return sessions.values().stream()
                .sorted(Comparator.comparingLong(ObiSession::dpid))
                .toList();
    }

    public Optional<ObiSession> session(long dpid) {
        return Optional.ofNullable(sessions.get(dpid));
    }

    public List<ObiSession> upSessions() {
        return sessions.values().stream().filter(s -> s.state() == ObiState.UP).toList();
    }

    /** Every session, in no order (for sweeps over all of them). */
    Collection<ObiSession> all() {
        return sessions.values();
    }

    public boolean contains(long dpid) {
        return sessions.containsKey(dpid);
    }

    public int size() {
        return sessions.size();
    }

    /** Atomically computes the session of {@code dpid} (as {@link ConcurrentHashMap#compute}). */
    ObiSession compute(long dpid, BiFunction<Long, ObiSession, ObiSession> f) {
        return sessions.compute(dpid, f);
    }

    /** Drops the session when it is still {@code s}; the OBI's client is forgotten. */
    boolean remove(ObiSession s) {
        if (sessions.remove(s.dpid(), s)) {
            http.forget(s.client().base(), s.dpid());
            return true;
        }
        return false;
    }

    /** Points the session at a new endpoint. */
    void move(ObiSession s, URI base, String remoteAddr) {
        http.forget(s.client().base(), s.dpid());
        s.client(client(s.dpid(), base));
        s.remoteAddr(remoteAddr);
    }

    /** A client for the OBI at {@code base}. */
    ObiClient client(long dpid, URI base) {
        http.expect(base, dpid);
        return new ObiClient(dpid, base, http.client(), codec, pending, metrics, props.requestTimeout());
    }

    /** Where the controller reaches the OBI that sent {@code hello} from {@code remoteAddr}. */
    URI endpoint(Hello hello, String remoteAddr) {
        String given = hello.sourceAddr();
        // a wildcard listen address says nothing about where the OBI is: use where it spoke from
        boolean usable = given != null
                && !given.isBlank()
                && !given.equals("0.0.0.0")
                && !given.equals("::")
                && !given.equals("[::]");
        String host = usable ? given : remoteAddr;
        int port = hello.sourcePort() != null ? hello.sourcePort() : props.obiPort();
        if (host.contains(":") && !host.startsWith("[")) {
            host = "[" + host + "]"; // IPv6 literal
        }
        return URI.create(http.scheme() + "://" + host + ":" + port);
    }

    private long count(ObiState state) {
        return sessions.values().stream().filter(s -> s.state() == state).count();
    }
}
