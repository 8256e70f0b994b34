package org.openbox.controller.events;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.openbox.controller.OpenboxProperties;
import org.openbox.controller.isolation.IsolationProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * The most recent alerts (bounded by {@code openbox.alert-history}), newest last, each with
 * its place in the order they were added ({@link Logged#seq}, 1, 2, ... from this controller's
 * start; the live stream's event ids are made from it). Kept across
 * controller restarts: written to {@code <openbox.state-dir>/alerts.json} when the controller
 * stops and read back (the newest {@code alert-history} of them) when it starts; an
 * unreadable file is logged and ignored.
 */
@Component
public class AlertLog implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(AlertLog.class);
    private static final long MAX_BYTES = 64L << 20;

    /** An alert and its place in the order alerts were added since this controller started. */
    public record Logged(long seq, AlertRecord alert) {}

    /** Alerts after a given one ({@link #after}): those kept, and the seq of the newest added then. */
    public record Since(List<Logged> alerts, long newest) {}

    private final int capacity;
    private final Deque<Logged> recent = new ArrayDeque<>();
    private final Path file;
    private final List<Consumer<Logged>> listeners = new CopyOnWriteArrayList<>();
    private long seq; // the last given, under this
    private long restored; // seqs up to this one were read back from the file at start
    private final ObjectMapper mapper = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public AlertLog(OpenboxProperties props, IsolationProperties state) {
        this.capacity = Math.max(1, props.alertHistory());
        this.file = state.stateDir().resolve("alerts.json");
        restore();
    }

    public void add(AlertRecord r) {
        Logged l;
        synchronized (this) {
            if (recent.size() == capacity) {
                recent.removeFirst();
            }
            l = new Logged(++seq, r);
            recent.addLast(l);
        }
        // outside the lock: a listener hands the record on and must not wait on this log
        listeners.forEach(x -> x.accept(l));
    }

    /**
     * Calls {@code listener} with every alert added from now on, on the thread that adds it
     * (it must return at once; two threads adding at once may call it out of seq order); the
     * returned handle removes it.
     */
    public AutoCloseable listen(Consumer<Logged> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** Up to {@code limit} newest alerts, optionally of one application only. */
    public List<AlertRecord> recent(int limit, String app) {
        return recent(limit, AlertFilter.ofApp(app));
    }

    /** Up to {@code limit} newest alerts that pass {@code filter}, oldest first. */
    public synchronized List<AlertRecord> recent(int limit, AlertFilter filter) {
        List<AlertRecord> out = new ArrayList<>();
        var it = recent.descendingIterator();
        while (it.hasNext() && out.size() < limit) {
            AlertRecord r = it.next().alert();
            if (filter.matches(r)) {
                out.add(r);
            }
        }
        java.util.Collections.reverse(out);
        return out;
    }

    /** The seq of the newest alert added so far (0: none): every alert added later has a greater one. */
    public synchronized long newest() {
        return seq;
    }

    /**
     * Up to {@code limit} newest kept alerts added after seq {@code after} that pass
     * {@code filter}, oldest first, and the seq of the newest alert added so far: every alert
     * added later has a greater seq. {@code after} of an earlier run of the controller
     * ({@code earlierRun}) means the alerts added since this one started (those read back from
     * the file were there before).
     */
    public synchronized Since after(long after, boolean earlierRun, AlertFilter filter, int limit) {
        long from = earlierRun ? restored : after;
        List<Logged> out = new ArrayList<>();
        var it = recent.descendingIterator();
        while (it.hasNext() && out.size() < limit) {
            Logged l = it.next();
            if (l.seq() <= from) {
                break;
            }
            if (filter.matches(l.alert())) {
                out.add(l);
            }
        }
        java.util.Collections.reverse(out);
        return new Since(out, seq);
    }

    private void restore() {
        if (!Files.exists(file)) {
            return;
        }
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new IOException("larger than " + MAX_BYTES + " bytes");
            }
            List<AlertRecord> saved = mapper.readValue(file.toFile(), new TypeReference<List<AlertRecord>>() {});
            saved.stream().skip(Math.max(0, saved.size() - capacity)).forEach(this::add);
            synchronized (this) {
                restored = seq;
            }
            log.info("{} alert(s) restored from {}", recent.size(), file.toAbsolutePath());
        } catch (IOException | RuntimeException e) {
            log.error("alert history {} ignored: {}", file.toAbsolutePath(), e.getMessage());
        }
    }

    @Override
    public synchronized void destroy() {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            mapper.writeValue(tmp.toFile(), recent.stream().map(Logged::alert).toList());
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.error("alert history not saved to {}: {}", file.toAbsolutePath(), e.getMessage());
        }
    }
}
