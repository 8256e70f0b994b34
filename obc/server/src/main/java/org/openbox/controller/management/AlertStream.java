package org.openbox.controller.management;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
import org.openbox.controller.events.AlertLog.Logged;
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
 *
 * <p>Every event has an id, {@code <run>-<seq>}: this controller run's token and the alert's
 * place in the {@link AlertLog}. A client that reconnects with {@code Last-Event-ID} (an
 * EventSource does so by itself) first gets what it missed that passes its filter, from the
 * alerts the log still keeps (at most {@code queue} of them, the newest), then the live ones,
 * each once. An id of an earlier run (the controller restarted) replays the alerts added since
 * this run started; an id that is not one of these is ignored (no replay). A new stream's first
 * bytes carry the id of the newest alert so far, with no data: a client whose stream ends
 * before any alert came still resumes from where it began, and loses nothing raised while it
 * reconnects.
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

    /** Where a client resumes: after {@code seq} of this run, or of an earlier run. */
    public record Resume(long seq, boolean earlierRun) {}

    private final class Client {
        final SseEmitter emitter;
        final AlertFilter filter;
        final BlockingQueue<Logged> queue;
        final AtomicBoolean closed = new AtomicBoolean();
        // writer thread only: the stream is open (and what was missed sent), and the newest
        // seq the replay covered (queued alerts up to it were sent by the replay)
        boolean ready;
        long replayedUpTo;

        Client(SseEmitter emitter, AlertFilter filter) {
            this.emitter = emitter;
            this.filter = filter;
            this.queue = new ArrayBlockingQueue<>(props.queue());
        }

        void offer(Logged r) {
            if (filter.matches(r.alert()) && !queue.offer(r)) {
                close(this, new IOException("the client does not read its alerts"));
            }
        }
    }

    private final AlertStreamProperties props;
    private final AlertLog alerts;
    /** This run's token in event ids: an id of an earlier run has another. */
    private final String run = Long.toString(System.currentTimeMillis(), 36);

    private final Set<Client> clients = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService writer;
    private final AutoCloseable subscription;
    private long lastHeartbeat = System.nanoTime();

    public AlertStream(AlertLog alerts, AlertStreamProperties props) {
        this.props = props;
        this.alerts = alerts;
        this.writer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "alert-stream");
            t.setDaemon(true);
            return t;
        });
        this.subscription = alerts.listen(this::publish);
        writer.scheduleWithFixedDelay(this::flush, 100, 100, TimeUnit.MILLISECONDS);
    }

    /**
     * Where a client that last got event {@code lastEventId} resumes; empty for none or an id
     * this stream never gives (ignored: the client gets the live alerts only).
     */
    public Optional<Resume> resume(String lastEventId) {
        if (lastEventId == null || lastEventId.isBlank() || lastEventId.length() > 40) {
            return Optional.empty();
        }
        String id = lastEventId.strip();
        int dash = id.indexOf('-');
        if (dash <= 0 || !id.substring(0, dash).chars().allMatch(Character::isLetterOrDigit)) {
            return Optional.empty();
        }
        try {
            long seq = Long.parseLong(id.substring(dash + 1));
            return seq < 0
                    ? Optional.empty()
                    : Optional.of(new Resume(seq, !id.substring(0, dash).equals(run)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** A new stream of the alerts that pass {@code filter}. */
    public SseEmitter open(AlertFilter filter) {
        return open(filter, null);
    }

    /**
     * A new stream of the alerts that pass {@code filter}; with {@code from}, first those
     * added after it that the log still keeps.
     */
    public SseEmitter open(AlertFilter filter, Resume from) {
        // read before the client is added: every alert after it reaches its queue or a replay
        long start = alerts.newest();
        SseEmitter emitter = new SseEmitter(props.timeout().toMillis());
        Client c = new Client(emitter, filter);
        synchronized (clients) { // the count and the add together: never more than max-clients
            if (clients.size() >= props.maxClients()) {
                throw new TooManyStreamsException(props.maxClients());
            }
            clients.add(c);
        }
        emitter.onCompletion(() -> clients.remove(c));
        emitter.onTimeout(() -> close(c, null));
        emitter.onError(e -> close(c, null));
        // the first bytes go out at once, so the client knows the stream is open (a new stream:
        // with the id it starts from); then what it missed
        SseEmitter.SseEventBuilder opening = SseEmitter.event();
        if (from == null) {
            opening.id(run + "-" + start);
        }
        writer.execute(() -> {
            if (!send(c, opening.comment("alerts")) || from == null) {
                c.ready = true;
                return;
            }
            AlertLog.Since missed = alerts.after(from.seq(), from.earlierRun(), filter, props.queue());
            c.replayedUpTo = missed.newest();
            c.ready = true;
            for (Logged l : missed.alerts()) {
                if (!send(c, event(l))) {
                    return;
                }
            }
        });
        return emitter;
    }

    private SseEmitter.SseEventBuilder event(Logged l) {
        return SseEmitter.event().id(run + "-" + l.seq()).name("alert").data(l.alert(), MediaType.APPLICATION_JSON);
    }

    /** Streams open now. */
    public int clients() {
        return clients.size();
    }

    private void publish(Logged r) {
        for (Client c : clients) {
            c.offer(r);
        }
    }

    private void flush() {
        try {
            boolean beat =
                    System.nanoTime() - lastHeartbeat >= props.heartbeat().toNanos();
            if (beat) {
                lastHeartbeat = System.nanoTime();
            }
            for (Client c : clients) {
                if (!c.ready) {
                    continue; // its replay has not run yet: its queue waits
                }
                List<Logged> batch = new ArrayList<>();
                c.queue.drainTo(batch);
                for (Logged r : batch) {
                    if (r.seq() > c.replayedUpTo && !send(c, event(r))) {
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
