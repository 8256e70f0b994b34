package org.openbox.controller.isolation;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * What the controller keeps across its restarts, in {@code <openbox.state-dir>/controller-state.json}:
 * per application whether the operator stopped it, its failure mode and when it was last
 * reloaded. Written whole on every change (to a temporary file, then moved into place), read
 * once at start-up. A missing file is an empty state; an unreadable one is logged and
 * ignored (the controller starts as on a first run) and is not overwritten until the next
 * change. Thread-safe.
 */
@Component
public class StateStore {

    private static final Logger log = LoggerFactory.getLogger(StateStore.class);
    private static final long MAX_BYTES = 4 << 20;

    /** One application's persisted state. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record AppRecord(boolean stoppedByOperator, String failureMode, Instant reloadedAt) {}

    /** The file's content. */
    public record State(Map<String, AppRecord> apps) {
        public State {
            apps = apps == null ? Map.of() : Map.copyOf(apps);
        }
    }

    private final Path file;
    private final ObjectMapper mapper = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private final Map<String, AppRecord> apps = new TreeMap<>();

    public StateStore(IsolationProperties props) {
        this.file = props.stateDir().resolve("controller-state.json");
        apps.putAll(read().apps());
    }

    public Path file() {
        return file;
    }

    /** The application's persisted state, if any. */
    public synchronized AppRecord get(String app) {
        return apps.get(app);
    }

    public synchronized void put(String app, AppRecord record) {
        if (record.equals(apps.put(app, record))) {
            return;
        }
        write();
    }

    private State read() {
        if (!Files.exists(file)) {
            return new State(Map.of());
        }
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new IOException("larger than " + MAX_BYTES + " bytes");
            }
            State s = mapper.readValue(file.toFile(), State.class);
            log.info(
                    "controller state restored from {} ({} application(s))",
                    file.toAbsolutePath(),
                    s.apps().size());
            return s;
        } catch (IOException | RuntimeException e) {
            log.error("controller state file {} ignored: {}", file.toAbsolutePath(), e.getMessage());
            return new State(Map.of());
        }
    }

    private void write() {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            mapper.writeValue(tmp.toFile(), new State(apps));
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            log.error("controller state not saved to {}: {}", file.toAbsolutePath(), e.getMessage());
        }
    }
}
