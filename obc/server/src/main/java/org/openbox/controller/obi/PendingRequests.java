package org.openbox.controller.obi;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.openbox.controller.metrics.ControllerMetrics;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.Message;
import org.springframework.stereotype.Component;

/**
 * Correlates down requests with the up messages that answer them, by xid.
 *
 * <p>Xids come from one counter, so they are unique across all OBIs. A request's future is
 * completed by the response message with the same xid, failed by an Error with that xid,
 * and failed with a {@link TimeoutException} when nothing arrives in time. The entry
 * remembers the OBI and the applications the request was made for, so an Error can be
 * surfaced to them.
 */
@Component
public class PendingRequests {

    /** One outstanding request. */
    public record Pending(
            long dpid, String requestType, Set<String> apps, long startNanos, CompletableFuture<Message> future) {}

    private final ConcurrentHashMap<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong nextXid = new AtomicLong(1);
    private final ControllerMetrics metrics;

    public PendingRequests(ControllerMetrics metrics) {
        this.metrics = metrics;
    }

    public long nextXid() {
        return nextXid.getAndIncrement();
    }

    /** Registers a request before it is sent (the answer may overtake the HTTP 200). */
    public CompletableFuture<Message> register(
            long xid, long dpid, String requestType, Set<String> apps, Duration timeout) {
        CompletableFuture<Message> future = new CompletableFuture<>();
        Pending p = new Pending(dpid, requestType, Set.copyOf(apps), System.nanoTime(), future);
        pending.put(xid, p);
        future.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((m, e) -> pending.remove(xid, p));
        return future;
    }

    /** Completes the request answered by {@code m}; returns it, or empty for an unknown xid. */
    public Optional<Pending> complete(Message m) {
        Pending p = pending.remove(m.xid());
        if (p == null) {
            return Optional.empty();
        }
        metrics.roundTrip(p.requestType(), System.nanoTime() - p.startNanos());
        if (m instanceof ErrorMessage err) {
            p.future()
                    .completeExceptionally(
                            new ObiErrorException(p.dpid(), err.errorType(), err.errorSubtype(), err.message()));
        } else {
            p.future().complete(m);
        }
        return Optional.of(p);
    }

    /** Fails a request whose POST itself failed. */
    public void fail(long xid, Throwable cause) {
        Pending p = pending.remove(xid);
        if (p != null) {
            p.future().completeExceptionally(cause);
        }
    }

    /**
     * Fails every outstanding request to one OBI: it went down or started over, so no answer
     * will come, and whoever awaits one (the set-up thread) must not wait for its timeout.
     */
    public int failAll(long dpid, String why) {
        int n = 0;
        for (var e : pending.entrySet()) {
            Pending p = e.getValue();
            if (p.dpid() == dpid && pending.remove(e.getKey(), p)) {
                p.future()
                        .completeExceptionally(new ObiUnreachableException(
                                "OBI " + dpid + ": " + p.requestType() + " not answered: " + why, null));
                n++;
            }
        }
        return n;
    }

    public Optional<Pending> peek(long xid) {
        return Optional.ofNullable(pending.get(xid));
    }

    public int size() {
        return pending.size();
    }
}
