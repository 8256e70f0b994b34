package org.openbox.controller.management;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.openbox.controller.events.AlertFilter;
import org.openbox.controller.events.AlertLog;
import org.openbox.controller.events.AlertRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Server-Sent Events of new alerts (GET /api/alerts/stream): each client has its filter and
 * a bounded queue; one writer thread sends what is queued and, every
 * {@code openbox.alert-stream.heartbeat}, a comment line to every stream, so a client that
 * went away is noticed (its write fails) and removed with its queue. No thread is held per
 * client. A client whose queue overflows (it does not read) is closed; at most
 * {@code max-clients} streams are open at once.
 */
@Component
public class AlertStream implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(AlertStream.class);

    /** Refused: too many streams open. */
    public static final class TooManyStreamsException extends RuntimeException {
        TooManyStreamsException(int max) {
            super("too many alert streams open (openbox.alert-stream.max-clients=" + max + ")");
        }
    }

    private final class Client {
        final SseEmitter emitter;
        final AlertFilter filter;
        final BlockingQueue<AlertRecord> queue;
        final AtomicBoolean closed = new AtomicBoolean();

        Client(SseEmitter emitter, AlertFilter filter) {
            this.emitter = emitter;
            this.filter = filter;
            this.queue = new ArrayBlockingQueue<>(props.queue());
        }

        void offer(AlertRecord r) {
            if (filter.matches(r) && !queue.offer(r)) {
                close(this, new IOException("the client does not read its alerts"));
            }
        }
    }

    private final AlertStreamProperties props;
    private final Set<Client> clients = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService writer;
    private final AutoCloseable subscription;
    private long lastHeartbeat = System.nanoTime();

    public AlertStream(AlertLog alerts, AlertStreamProperties props) {
        this.props = props;
        this.writer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "alert-stream");
            t.setDaemon(true);
            return t;
        });
        this.subscription = alerts.listen(this::publish);
        writer.scheduleWithFixedDelay(this::flush, 100, 100, TimeUnit.MILLISECONDS);
    }

    /** A new stream of the alerts that pass {@code filter}. */
    public SseEmitter open(AlertFilter filter) {
        SseEmitter emitter = new SseEmitter(props.timeout().toMillis());
        Client c = new Client(emitter, filter);
        synchronized (clients) {   // the count and the add together: never more than max-clients
            if (clients.size() >= props.maxClients()) {
                throw new TooManyStreamsException(props.maxClients());
            }
            clients.add(c);
        }
        emitter.onCompletion(() -> clients.remove(c));
        emitter.onTimeout(() -> close(c, null));
        emitter.onError(e -> close(c, null));
        // the first bytes go out at once, so the client knows the stream is open
        writer.execute(() -> send(c, SseEmitter.event().comment("alerts")));
        return emitter;
    }

    /** Streams open now. */
    public int clients() {
        return clients.size();
    }

    private void publish(AlertRecord r) {
        for (Client c : clients) {
            c.offer(r);
        }
    }

    private void flush() {
        try {
            boolean beat = System.nanoTime() - lastHeartbeat >= props.heartbeat().toNanos();
            if (beat) {
                lastHeartbeat = System.nanoTime();
            }
            for (Client c : clients) {
                List<AlertRecord> batch = new ArrayList<>();
                c.queue.drainTo(batch);
                for (AlertRecord r : batch) {
                    if (!send(c, SseEmitter.event().name("alert").data(r, MediaType.APPLICATION_JSON))) {
                        break;
                    }
                }
                if (beat && batch.isEmpty()) {
                    send(c, SseEmitter.event().comment("keep-alive"));
                }
            }
        } catch (RuntimeException e) {
            log.warn("alert stream: {}", e.toString());
        }
    }

    private boolean send(Client c, SseEmitter.SseEventBuilder event) {
        if (c.closed.get()) {
            return false;
        }
        try {
            c.emitter.send(event);
            return true;
        } catch (IOException | IllegalStateException e) {
            close(c, e);
            return false;
        }
    }

    private void close(Client c, Throwable why) {
        if (c.closed.compareAndSet(false, true)) {
            clients.remove(c);
            c.queue.clear();
            try {
                c.emitter.complete();
            } catch (RuntimeException ignored) {
                // the connection is already gone
            }
            if (why != null) {
                log.debug("alert stream closed: {}", why.toString());
            }
        }
    }

    @Override
    public void destroy() throws Exception {
        subscription.close();
        writer.shutdownNow();
        clients.forEach(c -> close(c, null));
    }
}
