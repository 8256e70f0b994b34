package org.openbox.controller.obi;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongFunction;
import org.openbox.controller.metrics.ControllerMetrics;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.Message;

/**
 * Sends down messages to one OBI's REST endpoint ({@code POST <base>/message/<Type>}).
 *
 * <p>{@link #request} registers the xid first, then posts; the returned future completes
 * with the OBI's answer message (same xid) or fails with {@link ObiErrorException} (Error
 * answer or HTTP error with an Error body), {@link ObiUnreachableException} (not delivered)
 * or a timeout. Ordered sends wait until the previous ordered message got its HTTP answer,
 * so connection setup (SetParameters, SetProcessingGraph, Barrier) reaches the OBI in order.
 */
public final class ObiClient {

    private final long dpid;
    private final URI base;
    private final HttpClient http;
    private final MessageCodec codec;
    private final PendingRequests pending;
    private final ControllerMetrics metrics;
    private final Duration timeout;
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

    public ObiClient(
            long dpid,
            URI base,
            HttpClient http,
            MessageCodec codec,
            PendingRequests pending,
            ControllerMetrics metrics,
            Duration timeout) {
        this.dpid = dpid;
        this.base = base;
        this.http = http;
        this.codec = codec;
        this.pending = pending;
        this.metrics = metrics;
        this.timeout = timeout;
    }

    public URI base() {
        return base;
    }

    /** Sends a request built for a fresh xid; completes with the answer message. */
    public CompletableFuture<Message> request(LongFunction<Message> build, Set<String> apps, boolean ordered) {
        return request(build, apps, ordered, timeout);
    }

    /** The same, waiting up to {@code answerTimeout} for the answer (a graph the OBI compiles). */
    public CompletableFuture<Message> request(
            LongFunction<Message> build, Set<String> apps, boolean ordered, Duration answerTimeout) {
        long xid = pending.nextXid();
        Message m = build.apply(xid);
        CompletableFuture<Message> answer = pending.register(xid, dpid, m.type(), apps, answerTimeout);
        CompletableFuture<Void> posted = ordered ? postOrdered(m) : post(m);
        posted.whenComplete((ok, e) -> {
            if (e != null) {
                pending.fail(xid, unwrap(e));
            }
        });
        return answer;
    }

    /** Sends a message that has no answer message (BarrierRequest); completes on HTTP 200. */
    public CompletableFuture<Void> send(LongFunction<Message> build, boolean ordered) {
        Message m = build.apply(pending.nextXid());
        return ordered ? postOrdered(m) : post(m);
    }

    private synchronized CompletableFuture<Void> postOrdered(Message m) {
        CompletableFuture<Void> next = tail.handle((ok, e) -> null).thenCompose(x -> post(m));
        tail = next;
        return next;
    }

    private CompletableFuture<Void> post(Message m) {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/message/" + m.type()))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(codec.encodeBytes(m)))
                .build();
        metrics.messageSent(m.type());
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).handle((response, e) -> {
            if (e != null) {
                throw new ObiUnreachableException(
                        "OBI " + dpid + " at " + base + ": " + m.type() + " not delivered: " + unwrap(e), unwrap(e));
            }
            if (response.statusCode() != 200) {
                throw httpError(m, response);
            }
            return null;
        });
    }

    private RuntimeException httpError(Message m, HttpResponse<byte[]> response) {
        try {
            if (codec.decode(response.body()) instanceof ErrorMessage err) {
                return new ObiErrorException(dpid, err.errorType(), err.errorSubtype(), err.message());
            }
        } catch (ProtocolException | IllegalArgumentException ignored) {
            // not an Error body: report the status
        }
        return new ObiUnreachableException(
                "OBI " + dpid + " answered " + m.type() + " with HTTP " + response.statusCode(), null);
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
