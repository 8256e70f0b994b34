package org.openbox.controller.events;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openbox.controller.isolation.IsolationProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Writes every alert to an EVE JSON-lines file ({@link EveFormat}) on a thread of its own.
 * Alert intake only offers the alert to a bounded queue: when the queue is full (a slow or
 * full disk) the alert is dropped from the file and counted, and intake goes on. The file
 * is rotated by size ({@code eve.json} -> {@code eve.json.1} -> ... up to
 * {@code openbox.eve-log.max-files}); a write error is logged once per kind and the alert
 * counted as dropped. Meters: {@code openbox_eve_written_total}, {@code openbox_eve_dropped_total}.
 */
@Component
public class EveAlertLog implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(EveAlertLog.class);
    private static final int BATCH = 512;

    private final EveLogProperties props;
    private final Path file;
    private final long maxBytes;
    private final BlockingQueue<AlertRecord> queue;
    private final EveFormat format = new EveFormat(new ObjectMapper());
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final Thread writer;
    private volatile boolean stopping;
    private BufferedWriter out; // writer thread only
    private long size; // bytes in the current file, writer thread only
    private String lastError; // writer thread only

    public EveAlertLog(EveLogProperties props, IsolationProperties state, MeterRegistry registry) {
        this.props = props;
        this.file = (props.path() != null ? props.path() : state.stateDir().resolve("eve.json")).toAbsolutePath();
        this.maxBytes = props.maxFileSize().toBytes();
        this.queue = new ArrayBlockingQueue<>(props.queueCapacity());
        FunctionCounter.builder("openbox.eve.written", written, AtomicLong::get)
                .description("alerts written to the EVE alert log")
                .register(registry);
        FunctionCounter.builder("openbox.eve.dropped", dropped, AtomicLong::get)
                .description("alerts left out of the EVE alert log (queue full or write error)")
                .register(registry);
        this.writer = new Thread(this::run, "eve-log");
        writer.setDaemon(true);
        if (props.enabled()) {
            writer.start();
            log.info("alert log (EVE JSON lines): {}", file);
        }
    }

    /** Queues {@code r} for the file; never blocks. */
    public void offer(AlertRecord r) {
        if (!props.enabled()) {
            return;
        }
        if (!queue.offer(r)) {
            dropped.incrementAndGet();
        }
    }

    public Path file() {
        return file;
    }

    public long written() {
        return written.get();
    }

    public long dropped() {
        return dropped.get();
    }

    private void run() {
        List<AlertRecord> batch = new ArrayList<>(BATCH);
        while (!stopping || !queue.isEmpty()) {
            try {
                AlertRecord first = queue.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, BATCH - 1);
                for (AlertRecord r : batch) {
                    write(r);
                }
                if (out != null) {
                    out.flush();
                }
            } catch (InterruptedException e) {
                if (!stopping) {
                    Thread.currentThread().interrupt();
                    return;
                }
            } catch (IOException e) {
                failed(e);
            } finally {
                batch.clear();
            }
        }
        close();
    }

    private void write(AlertRecord r) {
        try {
            String line = format.toEve(r).toString() + "\n";
            long bytes = line.getBytes(StandardCharsets.UTF_8).length;
            if (out == null) {
                open();
            }
            if (size > 0 && size + bytes > maxBytes) {
                rotate();
                open();
            }
            out.write(line);
            size += bytes;
            written.incrementAndGet();
            lastError = null;
        } catch (IOException | RuntimeException e) {
            dropped.incrementAndGet();
            failed(e);
            close();
        }
    }

    private void open() throws IOException {
        Path dir = file.getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        out = Files.newBufferedWriter(
                file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        size = Files.size(file);
    }

    /** eve.json.(n-1) -> eve.json.n, ..., eve.json -> eve.json.1; the oldest beyond max-files is deleted. */
    private void rotate() throws IOException {
        close();
        int keep = props.maxFiles() - 1;
        if (keep == 0) {
            Files.deleteIfExists(file);
            return;
        }
        Files.deleteIfExists(numbered(keep));
        for (int i = keep - 1; i >= 1; i--) {
            if (Files.exists(numbered(i))) {
                Files.move(numbered(i), numbered(i + 1), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.move(file, numbered(1), StandardCopyOption.REPLACE_EXISTING);
    }

    private Path numbered(int i) {
        return file.resolveSibling(file.getFileName() + "." + i);
    }

    private void failed(Exception e) {
        String what = e.getClass().getSimpleName() + ": " + e.getMessage();
        if (!what.equals(lastError)) {
            log.error("alert log {}: {}", file, what);
            lastError = what;
        }
    }

    private void close() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                failed(e);
            }
            out = null;
        }
    }

    @Override
    public void destroy() throws InterruptedException {
        stopping = true;
        if (writer.isAlive()) {
            writer.join(5000);
        }
    }
}
