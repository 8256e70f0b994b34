package org.openbox.controller.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.message.GlobalStatsRequest;
import org.openbox.protocol.message.GlobalStatsResponse;
import org.openbox.protocol.message.Hello;
import org.openbox.protocol.message.KeepAlive;
import org.openbox.protocol.message.Message;
import org.openbox.protocol.message.ReadRequest;
import org.openbox.protocol.message.ReadResponse;
import org.openbox.protocol.message.SetParametersRequest;
import org.openbox.protocol.message.SetParametersResponse;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.openbox.protocol.message.SetProcessingGraphResponse;

/**
 * Many simulated OBIs: OBI i has its own loopback address 127.1.x.y (sent as Hello
 * source_addr), so the controller keeps one endpoint per OBI. Each answers SetParameters
 * and SetProcessingGraph like an OBI, and GlobalStats and Read (what the controller's
 * metrics collector asks) with made-up figures, and sends a KeepAlive every second, spread evenly over
 * the second. Plain HTTP: one HTTP server on a shared port answers for all of them. Mutual
 * TLS: every OBI has its own HTTPS server (the controller checks that the certificate at an
 * OBI's endpoint names its dpid, and connects to an address, so there is no name to choose
 * a certificate by), requiring the controller's certificate, and its own connection to the
 * controller with its certificate (dpids from {@link #FIRST_DPID}: obi-N.crt in the PKI
 * directory for each).
 */
final class KeepAliveScale {

    /** The first simulated OBI's dpid; bench/control.sh makes certificates from here. */
    static final long FIRST_DPID = 100_000;

    private final URI controller;
    private final HttpClient http;
    private final ObjectMapper json;
    private final BenchTls tls;
    private final MessageCodec codec = new MessageCodec();
    private final AtomicLong xids = new AtomicLong(1);
    private final AtomicLong failures = new AtomicLong();
    private final ConcurrentLinkedQueue<Long> keepAliveNanos = new ConcurrentLinkedQueue<>();
    private RawPoster poster;

    /** {@code tls} null: plain HTTP. */
    KeepAliveScale(URI controller, HttpClient http, ObjectMapper json, BenchTls tls) {
        this.controller = controller;
        this.http = http;
        this.json = json;
        this.tls = tls;
    }

    void run(int obis, int seconds, long pid) throws Exception {
        // the HTTPS server runs each TLS handshake on an executor thread, waiting on the peer:
        // enough threads that the controller's connections to 1000 OBIs do not queue behind few
        ExecutorService answers = Executors.newFixedThreadPool(tls == null ? 4 : 64);
        List<HttpServer> servers = new ArrayList<>();
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        SSLContext[] contexts = new SSLContext[obis];
        if (tls != null) {
            for (int i = 0; i < obis; i++) {
                contexts[i] = tls.obi(FIRST_DPID + i);
            }
        }
        poster = new RawPoster(controller.getHost(), controller.getPort(), 32,
                tls == null ? null : dpid -> contexts[(int) (dpid - FIRST_DPID)]);
        try {
            if (tls == null) {
                HttpServer server = HttpServer.create(new InetSocketAddress("0.0.0.0", 0), 1024);
                server.createContext("/message/", ex -> answer(ex, dpidAt(ex.getLocalAddress())));
                servers.add(server);
            } else {
                for (int i = 0; i < obis; i++) {
                    long dpid = FIRST_DPID + i;
                    HttpsServer server = HttpsServer.create(new InetSocketAddress(address(i), 0), 64);
                    server.setHttpsConfigurator(new HttpsConfigurator(contexts[i]) {
                        @Override
                        public void configure(HttpsParameters params) {
                            SSLParameters p = getSSLContext().getDefaultSSLParameters();
                            p.setNeedClientAuth(true);   // like an OBI: only the controller may talk to it
                            params.setSSLParameters(p);
                        }
                    });
                    server.createContext("/message/", ex -> answer(ex, dpid));
                    servers.add(server);
                }
            }
            for (HttpServer server : servers) {
                server.setExecutor(answers);
                server.start();
            }
            // OBIs start over ~2 s (like a fleet coming up); each sends KeepAlive from 1 s after its Hello
            long helloSpacingMicros = 2_000_000L / obis;
            long periodMicros = 1_000_000L;
            for (int i = 0; i < obis; i++) {
                long dpid = FIRST_DPID + i;
                String addr = address(i);
                int port = servers.get(tls == null ? 0 : i).getAddress().getPort();
                long start = helloSpacingMicros * i;
                ticker.schedule(() -> send(dpid, new Hello(xids.getAndIncrement(), dpid, "1.1.0",
                        codec.mapper().createObjectNode(), addr, port), false), start, TimeUnit.MICROSECONDS);
                ticker.scheduleAtFixedRate(() -> send(dpid, new KeepAlive(xids.getAndIncrement(), dpid), true),
                        start + periodMicros, periodMicros, TimeUnit.MICROSECONDS);
            }
            // measure from steady state: everyone registered (or a minute gone), then 2 s more
            long started = System.nanoTime();
            Thread.sleep(3000);
            while (up() < obis && System.nanoTime() - started < 60_000_000_000L) {
                Thread.sleep(500);
            }
            double registration = (System.nanoTime() - started) / 1e9;
            Thread.sleep(2000);
            keepAliveNanos.clear();
            double cpu0 = ControlBench.cpuSeconds(pid);
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            double cpu1 = ControlBench.cpuSeconds(pid);
            double wall = (System.nanoTime() - t0) / 1e9;
            ticker.shutdownNow();
            report(obis, seconds, pid, cpu0, cpu1, wall, registration);
        } finally {
            ticker.shutdownNow();
            poster.close();
            servers.forEach(server -> server.stop(0));
            answers.shutdownNow();
        }
    }

    private static String address(int i) {
        return "127.1." + (i / 250) + "." + (i % 250 + 1);
    }

    /** The simulated OBI whose address a request was sent to (the inverse of {@link #address}). */
    private static long dpidAt(InetSocketAddress local) {
        byte[] a = local.getAddress().getAddress();
        return FIRST_DPID + (a[2] & 0xff) * 250L + (a[3] & 0xff) - 1;
    }

    /** How many simulated OBIs the controller lists as UP. */
    private int up() throws Exception {
        int up = 0;
        for (JsonNode o : ControlBench.getJson(http, json, controller.resolve("/api/obis"))) {
            if (o.get("dpid").asLong() >= FIRST_DPID && "UP".equals(o.get("state").asText())) {
                up++;
            }
        }
        return up;
    }

    private void report(int obis, int seconds, long pid, double cpu0, double cpu1, double wall, double registration)
            throws Exception {
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
        System.out.printf(Locale.ROOT, "{\"obis\": %d, \"transport\": \"%s\", \"registration_s\": %.1f, \"keepalive_interval_s\": 1, \"seconds\": %d, \"keepalives\": %d, "
                        + "\"send_failures\": %d, \"up\": %d, \"missed_deadlines\": %d, \"keepalive_p99_ms\": %.3f, "
                        + "\"controller_cpu_pct\": %.1f, \"controller_heap_mb\": %.1f, \"controller_rss_mb\": %.1f}%n",
                obis, tls == null ? "plain" : "tls", registration, seconds, lat.length, failures.get(), up, missed, p99, cpuPct, heapMb, ControlBench.rssMb(pid));
    }

    private void send(long dpid, Message m, boolean timed) {
        poster.post(dpid, "/message/" + m.type(), codec.encode(m), (status, nanos) -> {
            if (status != 200) {
                if (failures.incrementAndGet() <= 3) {
                    System.err.println("[bench] " + m.type() + " failed: " + (status < 0 ? "I/O error" : "HTTP " + status));
                }
            } else if (timed) {
                keepAliveNanos.add(nanos);
            }
        });
    }

    /** GlobalStats of a simulated OBI, as a real one reports them (the controller's metrics collector reads them). */
    private com.fasterxml.jackson.databind.node.ObjectNode stats(long dpid) {
        long packets = (System.nanoTime() / 1000) + dpid;
        return codec.mapper().createObjectNode().put("current_load", 0.1).put("uptime", 60).put("cpus", 1)
                .put("packets_in", packets).put("bytes_in", packets * 600).put("packets_out", packets - 10)
                .put("bytes_out", (packets - 10) * 600).put("packets_dropped", 10);
    }

    /** Answers a request to OBI {@code dpid}, sending the reply from it. */
    private void answer(HttpExchange ex, long dpid) throws IOException {
        byte[] body = ex.getRequestBody().readAllBytes();
        ex.sendResponseHeaders(200, -1);
        ex.close();
        Message m = codec.decode(body);
        Message reply = m instanceof SetParametersRequest r ? new SetParametersResponse(r.xid())
                : m instanceof SetProcessingGraphRequest r ? new SetProcessingGraphResponse(r.xid(), null, null)
                : m instanceof GlobalStatsRequest r ? new GlobalStatsResponse(r.xid(), stats(dpid))
                : m instanceof ReadRequest r ? new ReadResponse(r.xid(), r.blockId(), r.readHandle(),
                        codec.mapper().getNodeFactory().numberNode(0))
                : null;
        if (reply != null) {
            send(dpid, reply, false);
        }
    }
}
