package org.openbox.controller.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.openbox.controller.testobi.TestObi;

/**
 * Controller benchmark against a running controller (see bench/control.sh).
 *
 * <p>Round trips on loopback, each measured n times after a common warm-up of all of them, printed as
 * {@code {"message": TYPE, "transport": "plain"|"tls", "p50_ms": X, "p99_ms": X, "n": N}}:
 * <ul>
 * <li>KeepAlive: an OBI's POST /message/KeepAlive until the controller's 200;</li>
 * <li>GlobalStats: GET /api/obis/{dpid}/stats, i.e. management call, GlobalStatsRequest to
 *     the test OBI, its GlobalStatsResponse back, answer;</li>
 * <li>Read: GET /api/obis/{dpid}/blocks/{block}/count, likewise with ReadRequest/ReadResponse.</li>
 * </ul>
 * Then {@code --obis} simulated OBIs (default 1000) say Hello and send KeepAlive every
 * second; the controller must run with openbox.keepalive-interval=1s. Once all are UP (at
 * most a minute: registration_s) and 2 s more, {@code --seconds} are measured. Prints how
 * many stayed up, the deadlines missed since the first Hello, and the controller's CPU and
 * heap.
 *
 * <p>With {@code --pki DIR} everything runs over mutual TLS against a controller serving
 * HTTPS (an https URL): the OBIs present their own certificates from DIR (obi-1 for the round
 * trips, obi-N from {@link KeepAliveScale#FIRST_DPID} for the simulated OBIs), the management
 * calls present none, and everyone trusts DIR/ca.crt only.
 *
 * <p>Arguments: --controller URL --pid PID --n N --obis N --seconds S [--start-seconds S (2: the
 * simulated OBIs start evenly over it)] [--warmup-seconds W (2: the window starts W s after the
 * last OBI registered)] [--pki DIR]
 */
public final class ControlBench {

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http;
    private final URI controller;
    private final BenchTls tls;

    /** {@code tls} null: plain HTTP. */
    private ControlBench(URI controller, BenchTls tls) {
        this.controller = controller;
        this.tls = tls;
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1);
        if (tls != null) {
            b.sslContext(tls.operator());
        }
        this.http = b.build();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            a.put(args[i], args[i + 1]);
        }
        URI controller = URI.create(a.getOrDefault("--controller", "http://127.0.0.1:3637"));
        long pid = Long.parseLong(a.getOrDefault("--pid", "0"));
        int n = Integer.parseInt(a.getOrDefault("--n", "2000"));
        int obis = Integer.parseInt(a.getOrDefault("--obis", "1000"));
        int seconds = Integer.parseInt(a.getOrDefault("--seconds", "20"));
        int startSeconds = Integer.parseInt(a.getOrDefault("--start-seconds", "2"));
        int warmupSeconds = Integer.parseInt(a.getOrDefault("--warmup-seconds", "2"));
        String pki = a.get("--pki");
        ControlBench bench = new ControlBench(controller, pki == null ? null : BenchTls.open(Path.of(pki)));
        bench.roundTrips(n);
        if (obis > 0) {
            // --metrics-path request: the simulated OBIs refuse metrics subscriptions (collected by request)
            boolean onKeepAlive = !"request".equals(a.getOrDefault("--metrics-path", "keepalive"));
            new KeepAliveScale(controller, bench.http, bench.json, bench.tls, onKeepAlive)
                    .run(obis, seconds, Math.max(1, startSeconds), Math.max(0, warmupSeconds), pid);
        }
        System.exit(0);
    }

    private void roundTrips(int n) throws Exception {
        SSLContext obiTls = tls == null ? null : tls.obi(1);
        try (TestObi obi = new TestObi(1, controller.toString(), obiTls, obiTls)) {
            obi.onRead((block, handle) ->
                    json.getNodeFactory().arrayNode().add(1).add(2).add(3));
            hello(obi);
            waitUp(1);
            Map<String, Supplier<Integer>> calls = new LinkedHashMap<>();
            calls.put("KeepAlive", () -> obi.keepAlive().statusCode());
            calls.put("GlobalStats", () -> get("/api/obis/1/stats"));
            calls.put("Read", () -> get("/api/obis/1/blocks/bench_block/count"));
            // warm every path first: the round trips share most of their code (southbound
            // endpoint, OBI client, async answers), so the first one measured would otherwise
            // pay for the JIT compilation of all of them
            int warmup = Math.min(2000, n);
            for (int i = 0; i < warmup; i++) {
                for (Map.Entry<String, Supplier<Integer>> c : calls.entrySet()) {
                    check(c.getValue().get() == 200, c.getKey() + " failed during warm-up");
                }
            }
            calls.forEach((type, call) -> measure(type, n, call));
        }
    }

    /** Hello as an OBI says it: again (up to ten times, 2 s apart) while no answer comes. */
    private static void hello(TestObi obi) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                check(obi.hello().statusCode() == 200, "Hello refused");
                return;
            } catch (java.io.UncheckedIOException e) {
                if (attempt == 10) {
                    throw e;
                }
                Thread.sleep(2000);
            }
        }
    }

    private void measure(String type, int n, Supplier<Integer> call) {
        double[] ms = new double[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            int status = call.get();
            ms[i] = (System.nanoTime() - t0) / 1e6;
            check(status == 200, type + " answered HTTP " + status);
        }
        Arrays.sort(ms);
        System.out.printf(
                Locale.ROOT,
                "{\"message\": \"%s\", \"transport\": \"%s\", \"p50_ms\": %.3f, \"p99_ms\": %.3f, \"n\": %d}%n",
                type,
                tls == null ? "plain" : "tls",
                ms[n / 2],
                ms[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)],
                n);
    }

    int get(String path) {
        try {
            HttpRequest r = authorized(HttpRequest.newBuilder(controller.resolve(path)))
                    .timeout(Duration.ofSeconds(10))
                    .GET()
                    .build();
            return http.send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void waitUp(long dpid) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < end) {
            if (get("/api/obis/" + dpid) == 200) {
                return;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("OBI " + dpid + " not registered");
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    /** CPU seconds (user + system) a process has used, from /proc; -1 when unknown. */
    static double cpuSeconds(long pid) {
        if (pid <= 0) {
            return -1;
        }
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime in clock ticks
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * CPU seconds of a process per kind of thread (its name with the digits taken out, e.g.
     * "http-nio-N.N.N.N-N-exec-N"), from /proc; empty when unknown. Threads that ended are not
     * counted.
     */
    static java.util.Map<String, Double> cpuSecondsByThread(long pid) {
        java.util.Map<String, Double> out = new java.util.TreeMap<>();
        if (pid <= 0) {
            return out;
        }
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : tasks.toList()) {
                try {
                    String name = Files.readString(t.resolve("comm")).strip().replaceAll("[0-9]+", "N");
                    String stat = Files.readString(t.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    out.merge(name, (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0, Double::sum);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    /** Resident set size of a process in MiB, from /proc; -1 when unknown. */
    static double rssMb(long pid) {
        if (pid <= 0) {
            return -1;
        }
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** A number from /proc/PID/status (e.g. "Threads"); -1 when unknown. */
    static long procStatus(long pid, String field) {
        if (pid <= 0) {
            return -1;
        }
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(
                            line.substring(field.length() + 1).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** The machine's 1-minute load average, from /proc/loadavg; -1 when unknown. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The management API's bearer token, from OPENBOX_API_TOKEN (bench/control.sh sets it). */
    static HttpRequest.Builder authorized(HttpRequest.Builder b) {
        String token = System.getenv("OPENBOX_API_TOKEN");
        return token == null || token.isEmpty() ? b : b.header("Authorization", "Bearer " + token);
    }

    static JsonNode getJson(HttpClient http, ObjectMapper json, URI uri) throws Exception {
        HttpResponse<String> r =
                http.send(authorized(HttpRequest.newBuilder(uri)).GET().build(), HttpResponse.BodyHandlers.ofString());
        return json.readTree(r.body());
    }
}
