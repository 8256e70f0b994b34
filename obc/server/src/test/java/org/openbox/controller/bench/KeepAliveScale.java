package org.openbox.controller.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.message.Hello;
import org.openbox.protocol.message.KeepAlive;
import org.openbox.protocol.message.Message;
import org.openbox.protocol.message.SetParametersRequest;
import org.openbox.protocol.message.SetParametersResponse;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.openbox.protocol.message.SetProcessingGraphResponse;

/**
 * Many simulated OBIs on one HTTP server: OBI i has its own loopback address
 * 127.1.x.y (sent as Hello source_addr) on a shared port, so the controller keeps one
 * endpoint per OBI. Each answers SetParameters and SetProcessingGraph like an OBI and
 * sends a KeepAlive every second, spread evenly over the second.
 */
final class KeepAliveScale {

    private static final long FIRST_DPID = 100_000;

    private final URI controller;
    private final HttpClient http;
    private final ObjectMapper json;
    private final MessageCodec codec = new MessageCodec();
    private final AtomicLong xids = new AtomicLong(1);
    private final AtomicLong failures = new AtomicLong();
    private final ConcurrentLinkedQueue<Long> keepAliveNanos = new ConcurrentLinkedQueue<>();
    private RawPoster poster;

    KeepAliveScale(URI controller, HttpClient http, ObjectMapper json) {
        this.controller = controller;
        this.http = http;
        this.json = json;
    }

    void run(int obis, int seconds, long pid) throws Exception {
        ExecutorService answers = Executors.newFixedThreadPool(4);
        HttpServer server = HttpServer.create(new InetSocketAddress("0.0.0.0", 0), 1024);
        server.createContext("/message/", this::answer);
        server.setExecutor(answers);
        server.start();
        int port = server.getAddress().getPort();
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        poster = new RawPoster(controller.getHost(), controller.getPort(), 32);
        try {
            // OBIs start over ~2 s (like a fleet coming up); each sends KeepAlive from 1 s after its Hello
            long helloSpacingMicros = 2_000_000L / obis;
            long periodMicros = 1_000_000L;
            for (int i = 0; i < obis; i++) {
                long dpid = FIRST_DPID + i;
                String addr = "127.1." + (i / 250) + "." + (i % 250 + 1);
                long start = helloSpacingMicros * i;
                ticker.schedule(() -> send(new Hello(xids.getAndIncrement(), dpid, "1.1.0",
                        codec.mapper().createObjectNode(), addr, port), false), start, TimeUnit.MICROSECONDS);
                ticker.scheduleAtFixedRate(() -> send(new KeepAlive(xids.getAndIncrement(), dpid), true),
                        start + periodMicros, periodMicros, TimeUnit.MICROSECONDS);
            }
            Thread.sleep(4000);   // everyone registered and in steady state
            keepAliveNanos.clear();
            double cpu0 = ControlBench.cpuSeconds(pid);
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            double cpu1 = ControlBench.cpuSeconds(pid);
            double wall = (System.nanoTime() - t0) / 1e9;
            ticker.shutdownNow();
            report(obis, seconds, pid, cpu0, cpu1, wall);
        } finally {
            ticker.shutdownNow();
            server.stop(0);
            answers.shutdownNow();
            poster.close();
        }
    }

    private void report(int obis, int seconds, long pid, double cpu0, double cpu1, double wall) throws Exception {
        JsonNode list = ControlBench.getJson(http, json, controller.resolve("/api/obis"));
        int up = 0;
        long missed = 0;
        for (JsonNode o : list) {
            if (o.get("dpid").asLong() >= FIRST_DPID) {
                up += "UP".equals(o.get("state").asText()) ? 1 : 0;
                missed += o.get("downCount").asLong();
            }
        }
        JsonNode heap = ControlBench.getJson(http, json,
                controller.resolve("/actuator/metrics/jvm.memory.used?tag=area:heap"));
        double heapMb = heap.path("measurements").path(0).path("value").asDouble() / (1024 * 1024);
        long[] lat = keepAliveNanos.stream().mapToLong(Long::longValue).sorted().toArray();
        double p99 = lat.length == 0 ? -1 : lat[Math.min(lat.length - 1, (int) (lat.length * 0.99))] / 1e6;
        double cpuPct = cpu0 < 0 ? -1 : 100 * (cpu1 - cpu0) / wall;
        System.out.printf(Locale.ROOT, "{\"obis\": %d, \"keepalive_interval_s\": 1, \"seconds\": %d, \"keepalives\": %d, "
                        + "\"send_failures\": %d, \"up\": %d, \"missed_deadlines\": %d, \"keepalive_p99_ms\": %.3f, "
                        + "\"controller_cpu_pct\": %.1f, \"controller_heap_mb\": %.1f, \"controller_rss_mb\": %.1f}%n",
                obis, seconds, lat.length, failures.get(), up, missed, p99, cpuPct, heapMb, ControlBench.rssMb(pid));
    }

    private void send(Message m, boolean timed) {
        poster.post("/message/" + m.type(), codec.encode(m), (status, nanos) -> {
            if (status != 200) {
                if (failures.incrementAndGet() <= 3) {
                    System.err.println("[bench] " + m.type() + " failed: " + (status < 0 ? "I/O error" : "HTTP " + status));
                }
            } else if (timed) {
                keepAliveNanos.add(nanos);
            }
        });
    }

    private void answer(HttpExchange ex) throws IOException {
        byte[] body = ex.getRequestBody().readAllBytes();
        ex.sendResponseHeaders(200, -1);
        ex.close();
        Message m = codec.decode(body);
        Message reply = m instanceof SetParametersRequest r ? new SetParametersResponse(r.xid())
                : m instanceof SetProcessingGraphRequest r ? new SetProcessingGraphResponse(r.xid(), null, null) : null;
        if (reply != null) {
            send(reply, false);
        }
    }
}
