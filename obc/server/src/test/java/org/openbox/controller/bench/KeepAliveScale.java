package org.openbox.controller.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import javax.net.ssl.SSLContext;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.message.ErrorMessage;
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
 * Many simulated OBIs, each answering SetParameters, SetProcessingGraph, and GlobalStats and
 * Read (what the controller's metrics collector asks, with made-up figures) like an OBI, and
 * behaving towards the controller as the OBI does
 * (obi/src/control/client.cc): Hello with back-off (100 ms doubling to 2 s) until answered
 * 200; then a KeepAlive at once and one every keepalive_interval after the previous one was
 * answered (the spec's 10 s until a SetParametersRequest sets another, which applies at
 * once), one at a time; a KeepAlive that fails (no answer within 2 s, or refused) is tried
 * again 200 ms later, and after three failures in a row the OBI starts over with Hello.
 * OBI i has its own loopback address 127.1.x.y (sent as Hello source_addr), so the
 * controller keeps one endpoint per OBI; one {@link SimulatedObiServer} thread answers for
 * all of them on one port (plain HTTP, or mutual TLS with each OBI's certificate, chosen by
 * the address), and one {@link SimulatedObiClient} thread sends for all of them, each on its
 * own connection (with TLS presenting its certificate; dpids from {@link #FIRST_DPID}:
 * obi-N.crt in the PKI directory). So the benchmark process costs about what the OBIs'
 * control threads would, and the figures are the controller's. The OBIs start evenly over
 * {@code startSeconds} (2 s unless given).
 *
 * <p>Metrics: with {@code metricsOnKeepAlive} an OBI takes the controller's
 * {@code metrics_subscription} parameter and attaches its figures (GlobalStats, the subscribed
 * handles read as 0) to the first KeepAlive of each subscription interval, as the OBI does;
 * without, it refuses the parameter with ILLEGAL_ARGUMENT as an OBI that does not know it, and
 * the controller collects it with GlobalStats and Read requests. The window's collection
 * requests (GlobalStats, Read, subscriptions) and KeepAlives with metrics are reported.
 */
final class KeepAliveScale {

    /** The first simulated OBI's dpid; bench/control.sh makes certificates from here. */
    static final long FIRST_DPID = 100_000;

    private static final long DEFAULT_INTERVAL_NANOS = 10_000_000_000L; // spec 3.3
    private static final long RETRY_NANOS = 200_000_000L;
    private static final int ATTEMPTS = 3;

    private final URI controller;
    private final HttpClient http;
    private final ObjectMapper json;
    private final BenchTls tls;
    private final MessageCodec codec = new MessageCodec();
    private final AtomicLong xids = new AtomicLong(1);
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong hellosAgain = new AtomicLong();
    private final boolean metricsOnKeepAlive;
    private final AtomicLong collectionRequests = new AtomicLong(); // GlobalStats, Read, metrics_subscription
    private final AtomicLong keepAlivesWithMetrics = new AtomicLong();
    /** KeepAlive latencies in the window, of those that carried metrics and of the rest. */
    private final ConcurrentLinkedQueue<Long> metricsKeepAliveNanos = new ConcurrentLinkedQueue<>();

    private final ConcurrentLinkedQueue<Long> plainKeepAliveNanos = new ConcurrentLinkedQueue<>();

    private volatile List<Obi> obis = List.of();
    private ScheduledExecutorService ticker;
    private SimulatedObiClient poster;

    /** {@code tls} null: plain HTTP. */
    KeepAliveScale(URI controller, HttpClient http, ObjectMapper json, BenchTls tls, boolean metricsOnKeepAlive) {
        this.metricsOnKeepAlive = metricsOnKeepAlive;
        this.controller = controller;
        this.http = http;
        this.json = json;
        this.tls = tls;
    }

    void run(int count, int seconds, int startSeconds, int warmupSeconds, long pid) throws Exception {
        SSLContext[] contexts = new SSLContext[count];
        if (tls != null) {
            for (int i = 0; i < count; i++) {
                contexts[i] = tls.obi(FIRST_DPID + i);
            }
        }
        ticker = Executors.newSingleThreadScheduledExecutor();
        // the TLS handshakes' computations, off the two I/O threads (as many as there are cores)
        ExecutorService handshakes =
                Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors(), r -> {
                    Thread t = new Thread(r, "simulated-obi-tls");
                    t.setDaemon(true);
                    return t;
                });
        poster = new SimulatedObiClient(
                controller.getHost(),
                controller.getPort(),
                tls == null ? null : dpid -> contexts[(int) (dpid - FIRST_DPID)],
                handshakes);
        try (SimulatedObiServer server = new SimulatedObiServer(
                KeepAliveScale::dpidAt,
                tls == null ? null : dpid -> contexts[(int) (dpid - FIRST_DPID)],
                handshakes,
                this::answer)) {
            List<Obi> all = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                all.add(new Obi(FIRST_DPID + i, address(i), server.port()));
            }
            obis = List.copyOf(all);
            long spacingNanos = startSeconds * 1_000_000_000L / count;
            for (int i = 0; i < count; i++) {
                schedule(obis.get(i)::hello, spacingNanos * i);
            }
            // measure from steady state: everyone registered (or a minute after the last start), then the
            // warm-up (the controller's JIT compiler busy with the paths the fleet runs)
            long started = System.nanoTime();
            Thread.sleep(3000);
            while (up() < count && System.nanoTime() - started < (60L + startSeconds) * 1_000_000_000L) {
                Thread.sleep(500);
            }
            double registration = (System.nanoTime() - started) / 1e9;
            Thread.sleep(warmupSeconds * 1000L);
            long missedBefore = missed();
            metricsKeepAliveNanos.clear();
            plainKeepAliveNanos.clear();
            long refusedBefore = refused.get();
            double load0 = ControlBench.loadAverage();
            long hellosBefore = hellosAgain.get();
            long requestsBefore = collectionRequests.get();
            long attachedBefore = keepAlivesWithMetrics.get();
            double cpu0 = ControlBench.cpuSeconds(pid);
            var threads0 = ControlBench.cpuSecondsByThread(pid);
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            double cpu1 = ControlBench.cpuSeconds(pid);
            var threads1 = ControlBench.cpuSecondsByThread(pid);
            double wall = (System.nanoTime() - t0) / 1e9;
            long[] withMetrics = sorted(metricsKeepAliveNanos);
            long[] withoutMetrics = sorted(plainKeepAliveNanos);
            long[] window = LongStream.concat(Arrays.stream(withMetrics), Arrays.stream(withoutMetrics))
                    .sorted()
                    .toArray();
            long refusedInWindow = refused.get() - refusedBefore;
            long hellosInWindow = hellosAgain.get() - hellosBefore;
            long requestsInWindow = collectionRequests.get() - requestsBefore;
            long attachedInWindow = keepAlivesWithMetrics.get() - attachedBefore;
            ticker.shutdownNow();
            double load1 = ControlBench.loadAverage();
            report(
                    count,
                    seconds,
                    startSeconds,
                    warmupSeconds,
                    pid,
                    cpu1 - cpu0,
                    cpu0 >= 0,
                    wall,
                    registration,
                    window,
                    refusedInWindow,
                    hellosInWindow,
                    missedBefore,
                    load0,
                    load1);
            threadReport(threads0, threads1, wall);
            System.out.printf(
                    Locale.ROOT,
                    "{\"simulated_obis_subscribe\": %s, \"collection_requests_window\": %d, "
                            + "\"keepalives_with_metrics_window\": %d, "
                            + "\"keepalive_p50_ms_with_metrics\": %.3f, \"keepalive_p99_ms_with_metrics\": %.3f, "
                            + "\"keepalive_p50_ms_without_metrics\": %.3f, \"keepalive_p99_ms_without_metrics\": %.3f}%n",
                    metricsOnKeepAlive,
                    requestsInWindow,
                    attachedInWindow,
                    percentileMs(withMetrics, 0.50),
                    percentileMs(withMetrics, 0.99),
                    percentileMs(withoutMetrics, 0.50),
                    percentileMs(withoutMetrics, 0.99));
        } finally {
            ticker.shutdownNow();
            poster.close();
            handshakes.shutdownNow();
        }
    }

    /** The q-quantile of sorted latencies in ms, -1 when there are none. */
    private static double percentileMs(long[] sorted, double q) {
        return sorted.length == 0 ? -1 : sorted[Math.min(sorted.length - 1, (int) (sorted.length * q))] / 1e6;
    }

    private static long[] sorted(ConcurrentLinkedQueue<Long> nanos) {
        return nanos.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    private static String address(int i) {
        return "127.1." + (i / 250) + "." + (i % 250 + 1);
    }

    /** The simulated OBI whose address a connection was made to (the inverse of {@link #address}). */
    private static long dpidAt(InetAddress local) {
        byte[] a = local.getAddress();
        return FIRST_DPID + (a[2] & 0xff) * 250L + (a[3] & 0xff) - 1;
    }

    /** How many simulated OBIs the controller lists as UP. */
    private int up() throws Exception {
        int up = 0;
        for (JsonNode o : ControlBench.getJson(http, json, controller.resolve("/api/obis"))) {
            if (o.get("dpid").asLong() >= FIRST_DPID
                    && "UP".equals(o.get("state").asText())) {
                up++;
            }
        }
        return up;
    }

    /** The down counts of the simulated OBIs the controller lists, added up. */
    private long missed() throws Exception {
        long missed = 0;
        for (JsonNode o : ControlBench.getJson(http, json, controller.resolve("/api/obis"))) {
            if (o.get("dpid").asLong() >= FIRST_DPID) {
                missed += o.get("downCount").asLong();
            }
        }
        return missed;
    }

    private void report(
            int count,
            int seconds,
            int startSeconds,
            int warmupSeconds,
            long pid,
            double cpu,
            boolean cpuKnown,
            double wall,
            double registration,
            long[] lat,
            long refusedInWindow,
            long hellosInWindow,
            long missedBefore,
            double load0,
            double load1)
            throws Exception {
        JsonNode list = ControlBench.getJson(http, json, controller.resolve("/api/obis"));
        int up = 0;
        int listed = 0;
        long missed = 0;
        for (JsonNode o : list) {
            if (o.get("dpid").asLong() >= FIRST_DPID) {
                listed++;
                up += "UP".equals(o.get("state").asText()) ? 1 : 0;
                missed += o.get("downCount").asLong();
            }
        }
        JsonNode heap =
                ControlBench.getJson(http, json, controller.resolve("/actuator/metrics/jvm.memory.used?tag=area:heap"));
        double heapMb = heap.path("measurements").path(0).path("value").asDouble() / (1024 * 1024);
        double p50 = percentileMs(lat, 0.50);
        double p99 = percentileMs(lat, 0.99);
        double max = lat.length == 0 ? -1 : lat[lat.length - 1] / 1e6;
        double cpuPct = cpuKnown ? 100 * cpu / wall : -1;
        System.out.printf(
                Locale.ROOT,
                "{\"obis\": %d, \"transport\": \"%s\", \"start_s\": %d, \"warmup_s\": %d, \"registration_s\": %.1f, "
                        + "\"keepalive_interval_s\": 1, \"seconds\": %d, \"keepalives\": %d, \"keepalives_refused\": %d, "
                        + "\"hellos_again\": %d, \"send_failures\": %d, \"listed\": %d, \"up\": %d, "
                        + "\"missed_deadlines\": %d, \"missed_deadlines_window\": %d, \"keepalive_p50_ms\": %.3f, "
                        + "\"keepalive_p99_ms\": %.3f, \"keepalive_max_ms\": %.3f, \"controller_cpu_pct\": %.1f, "
                        + "\"controller_heap_mb\": %.1f, \"controller_rss_mb\": %.1f, \"controller_threads\": %d, "
                        + "\"load_1m_start\": %.2f, \"load_1m_end\": %.2f}%n",
                count,
                tls == null ? "plain" : "tls",
                startSeconds,
                warmupSeconds,
                registration,
                seconds,
                lat.length,
                refusedInWindow,
                hellosInWindow,
                failures.get(),
                listed,
                up,
                missed,
                missed - missedBefore,
                p50,
                p99,
                max,
                cpuPct,
                heapMb,
                ControlBench.rssMb(pid),
                ControlBench.procStatus(pid, "Threads"),
                load0,
                load1);
    }

    /**
     * The controller's CPU in the window per kind of thread, % of one core, the busiest first
     * (those under 0.5 % left out): where the controller's time goes.
     */
    private static void threadReport(
            java.util.Map<String, Double> before, java.util.Map<String, Double> after, double wall) {
        StringBuilder b = new StringBuilder("{\"controller_cpu_pct_by_thread\": {");
        String sep = "";
        for (var e : after.entrySet().stream()
                .sorted((x, y) -> Double.compare(
                        y.getValue() - before.getOrDefault(y.getKey(), 0.0),
                        x.getValue() - before.getOrDefault(x.getKey(), 0.0)))
                .toList()) {
            double pct = 100 * (e.getValue() - before.getOrDefault(e.getKey(), 0.0)) / wall;
            if (pct >= 0.5) {
                b.append(sep)
                        .append('"')
                        .append(e.getKey())
                        .append("\": ")
                        .append(String.format(Locale.ROOT, "%.1f", pct));
                sep = ", ";
            }
        }
        System.out.println(b.append("}}"));
    }

    /** Runs {@code task} on the ticker after {@code nanos}; nothing once the run is over. */
    private ScheduledFuture<?> schedule(Runnable task, long nanos) {
        try {
            return ticker.schedule(task, Math.max(0, nanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    /** Answers the controller's request to OBI {@code dpid} as an OBI does (on the server's thread). */
    private void answer(long dpid, byte[] body) {
        Message m = codec.decode(body);
        Obi obi = obis.get((int) (dpid - FIRST_DPID));
        if (m instanceof SetParametersRequest r) {
            JsonNode sub = r.parameters().get("metrics_subscription");
            if (sub != null) {
                collectionRequests.incrementAndGet();
                if (!metricsOnKeepAlive) {
                    obi.post(
                            new ErrorMessage(
                                    r.xid(),
                                    ErrorType.BAD_REQUEST,
                                    ErrorSubtype.ILLEGAL_ARGUMENT,
                                    "parameter metrics_subscription is unknown",
                                    null),
                            null);
                    return;
                }
                obi.subscribe(sub.isObject() ? sub : null);
            }
            JsonNode interval = r.parameters().get("keepalive_interval");
            if (interval != null && interval.isNumber() && interval.asDouble() > 0) {
                obi.interval((long) (interval.asDouble() * 1e9));
            }
            obi.post(new SetParametersResponse(r.xid()), null);
        } else if (m instanceof SetProcessingGraphRequest r) {
            obi.post(new SetProcessingGraphResponse(r.xid(), null, null), null);
        } else if (m instanceof GlobalStatsRequest r) {
            collectionRequests.incrementAndGet();
            obi.post(new GlobalStatsResponse(r.xid(), stats(dpid)), null);
        } else if (m instanceof ReadRequest r) {
            collectionRequests.incrementAndGet();
            obi.post(
                    new ReadResponse(
                            r.xid(),
                            r.blockId(),
                            r.readHandle(),
                            codec.mapper().getNodeFactory().numberNode(0)),
                    null);
        }
    }

    /** GlobalStats of a simulated OBI, as a real one reports them (the controller's metrics collector reads them). */
    private com.fasterxml.jackson.databind.node.ObjectNode stats(long dpid) {
        long packets = (System.nanoTime() / 1000) + dpid;
        return codec.mapper()
                .createObjectNode()
                .put("current_load", 0.1)
                .put("uptime", 60)
                .put("cpus", 1)
                .put("packets_in", packets)
                .put("bytes_in", packets * 600)
                .put("packets_out", packets - 10)
                .put("bytes_out", (packets - 10) * 600)
                .put("packets_dropped", 10);
    }

    /** One simulated OBI's connection to the controller (see the class comment). */
    private final class Obi {
        private final long dpid;
        private final String addr;
        private final int port;
        private long intervalNanos = DEFAULT_INTERVAL_NANOS;
        private long backoffMillis = 100;
        private boolean inFlight;
        private long lastAnswered;
        private ScheduledFuture<?> next;
        private JsonNode subscription; // metrics_subscription taken; null: none
        private boolean subscriptionNew;
        private long metricsDueNanos;

        Obi(long dpid, String addr, int port) {
            this.dpid = dpid;
            this.addr = addr;
            this.port = port;
        }

        void hello() {
            post(
                    new Hello(
                            xids.getAndIncrement(),
                            dpid,
                            "1.1.0",
                            codec.mapper().createObjectNode(),
                            addr,
                            port),
                    (status, nanos) -> {
                        if (status == 200) {
                            synchronized (this) {
                                backoffMillis = 100;
                            }
                            keepAlive(0); // KeepAlive starts at once
                        } else {
                            long wait;
                            synchronized (this) {
                                wait = backoffMillis;
                                backoffMillis = Math.min(backoffMillis * 2, 2000);
                            }
                            schedule(this::hello, wait * 1_000_000);
                        }
                    });
        }

        void keepAlive(int attempt) {
            synchronized (this) {
                if (inFlight) {
                    return;
                }
                inFlight = true;
                next = null;
            }
            var figures = metrics();
            post(new KeepAlive(xids.getAndIncrement(), dpid, figures), (status, nanos) -> {
                if (status == 200) {
                    (figures != null ? metricsKeepAliveNanos : plainKeepAliveNanos).add(nanos);
                } else if (status > 0) {
                    refused.incrementAndGet();
                }
                synchronized (this) {
                    inFlight = false;
                    if (status == 200) {
                        lastAnswered = System.nanoTime();
                        next = schedule(() -> keepAlive(0), intervalNanos);
                        return;
                    }
                }
                if (attempt + 1 < ATTEMPTS) {
                    schedule(() -> keepAlive(attempt + 1), RETRY_NANOS);
                } else {
                    hellosAgain.incrementAndGet();
                    hello(); // the controller stopped answering or forgot this OBI: start over
                }
            });
        }

        synchronized void subscribe(JsonNode sub) {
            subscription = sub;
            subscriptionNew = true;
        }

        /** The figures due on this KeepAlive (a new subscription at once, then once per its interval), or null. */
        private com.fasterxml.jackson.databind.node.ObjectNode metrics() {
            JsonNode sub;
            synchronized (this) {
                long now = System.nanoTime();
                if (subscription == null || (!subscriptionNew && now < metricsDueNanos)) {
                    return null;
                }
                sub = subscription;
                subscriptionNew = false;
                metricsDueNanos = now + (long) (sub.path("interval").asDouble(10) * 1e9);
            }
            keepAlivesWithMetrics.incrementAndGet();
            var out = codec.mapper().createObjectNode();
            out.put("subscription", sub.path("id").asLong());
            if (sub.path("global_stats").asBoolean(true)) {
                out.set("stats", stats(dpid));
            }
            var reads = out.putObject("reads");
            for (JsonNode r : sub.path("reads")) {
                var block = reads.putObject(r.path("block_id").asText());
                r.path("read_handles").forEach(h -> block.put(h.asText(), 0));
            }
            out.putArray("errors");
            out.put("omitted", 0);
            return out;
        }

        /** A new keepalive_interval: applies to the KeepAlive already waiting. */
        synchronized void interval(long nanos) {
            intervalNanos = nanos;
            if (next != null && next.cancel(false)) {
                next = schedule(() -> keepAlive(0), lastAnswered + nanos - System.nanoTime());
            }
        }

        void post(Message m, SimulatedObiClient.Done done) {
            poster.post(dpid, "/message/" + m.type(), codec.encode(m), (status, nanos) -> {
                if (status != 200 && failures.incrementAndGet() <= 3) {
                    System.err.println("[bench] OBI " + dpid + ": " + m.type() + " failed: "
                            + (status < 0 ? "no answer" : "HTTP " + status));
                }
                if (done != null) {
                    done.done(status, nanos);
                }
            });
        }
    }
}
