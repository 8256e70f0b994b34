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
 * The most recent alerts (bounded by {@code openbox.alert-history}), newest last. Kept across
 * controller restarts: written to {@code <openbox.state-dir>/alerts.json} when the controller
 * stops and read back (the newest {@code alert-history} of them) when it starts; an
 * unreadable file is logged and ignored.
 */
@Component
public class AlertLog implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(AlertLog.class);
    private static final long MAX_BYTES = 64L << 20;

    private final int capacity;
    private final Deque<AlertRecord> recent = new ArrayDeque<>();
    private final Path file;
    private final List<Consumer<AlertRecord>> listeners = new CopyOnWriteArrayList<>();
    private final ObjectMapper mapper = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public AlertLog(OpenboxProperties props, IsolationProperties state) {
        this.capacity = Math.max(1, props.alertHistory());
        this.file = state.stateDir().resolve("alerts.json");
        restore();
    }

    public void add(AlertRecord r) {
        synchronized (this) {
            if (recent.size() == capacity) {
                recent.removeFirst();
            }
            recent.addLast(r);
        }
        // outside the lock: a listener hands the record on and must not wait on this log
        listeners.forEach(l -> l.accept(r));
    }

    /**
     * Calls {@code listener} with every alert added from now on, on the thread that adds it
     * (it must return at once); the returned handle removes it.
     */
    public AutoCloseable listen(Consumer<AlertRecord> listener) {
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
            AlertRecord r = it.next();
            if (filter.matches(r)) {
                out.add(r);
            }
        }
        java.util.Collections.reverse(out);
        return out;
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
            mapper.writeValue(tmp.toFile(), List.copyOf(recent));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.error("alert history not saved to {}: {}", file.toAbsolutePath(), e.getMessage());
        }
    }
}
