package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.restassured.RestAssured;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.controller.ControllerApplication;
import org.openbox.controller.events.EveAlertLog;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Alerts an analyst can act on, end to end: the real sample firewall and IPS applications
 * (loaded from jars like the controller's {@code --apps} directory, with the demo's rule
 * files) and the real OBI binary replaying a pcap written here. Each alert in
 * /api/alerts names the application's rule (Snort sid/rev/msg, the firewall's rule line),
 * carries the 5-tuple and the capture time of the packet in the pcap and, for the IPS
 * (attach_packet), the packet itself; the filters select by app, dpid, severity, rule and
 * time; the EVE alert log holds the same, rotated at a small size (1 KB) into several files
 * (dropping the oldest file: EveAlertLogTest).
 */
@SpringBootTest(
        classes = ControllerApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "openbox.keepalive-interval=1s",
            "openbox.keepalive-timeout=3s",
            "openbox.insecure=true",
            "openbox.state-dir=target/test-state/${random.uuid}",
            "openbox.eve-log.max-file-size=1KB",
            "openbox.eve-log.max-files=10"
        })
class AlertDetailsRealObiTest {

    private static final long DPID = 7301;
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path REPO = repoRoot();
    private static final Path SAMPLE = REPO.resolve("apps/demo/sample");
    /** Capture time of the first packet: 2023-11-14T22:13:20.123456Z; the others follow 250 ms apart. */
    private static final long FIRST_MICROS = 1_700_000_000_123_456L;

    private static final String CMD_EXE =
            "GET /scripts/..%c0%af../winnt/system32/cmd.exe?/c+dir HTTP/1.1\r\n" + "Host: www.example.test\r\n\r\n";

    @TempDir
    Path dir;

    @LocalServerPort
    int port;

    @Autowired
    EveAlertLog eve;

    private Process obi;

    /** One packet of the trace: IPv4 TCP (PSH+ACK, or SYN without payload). */
    record Sent(String src, int sport, String dst, int dport, String payload, long micros, byte[] frame) {
        Instant time() {
            return Instant.ofEpochSecond(micros / 1_000_000, micros % 1_000_000 * 1000);
        }
    }

    @DynamicPropertySource
    static void apps(DynamicPropertyRegistry registry) throws IOException {
        Path appsDir = Files.createTempDirectory("openbox-alert-apps");
        jar(REPO.resolve("apps/ips/target/classes"), appsDir.resolve("ips.jar"));
        jar(REPO.resolve("apps/firewall/target/classes"), appsDir.resolve("firewall.jar"));
        registry.add("openbox.apps-dir", appsDir::toString);
        registry.add(
                "openbox.app.ips.config", () -> SAMPLE.resolve("ips.properties").toString());
        registry.add("openbox.app.firewall.config", () -> SAMPLE.resolve("firewall.properties")
                .toString());
    }

    @BeforeEach
    void restAssured() {
        RestAssured.port = port;
        TestCredentials.asOperator();
    }

    @AfterEach
    void stopObi() throws InterruptedException {
        if (obi != null) {
            obi.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void alertsNameTheRuleThePacketAndItsTimeInTheApiAndTheEveLog() throws Exception {
        Assumptions.assumeFalse(Boolean.getBoolean("openbox.obi.skip"), "-Dopenbox.obi.skip=true");
        Path bin = RealObiTest.obiBinary();
        int fwLine = lineOf(SAMPLE.resolve("firewall.rules"), "msg \"ssh to the admin host\"");
        List<Sent> trace = new ArrayList<>();
        for (int i = 0; i < 4; i++) { // the IPS: sid 1000002 (cmd.exe in the request target)
            trace.add(sent(trace.size(), "10.0.1.5", 41000 + i, "10.0.2.10", 80, CMD_EXE));
        }
        for (int i = 0; i < 2; i++) { // the firewall: alert rule on ssh to the admin host (no payload: SYN)
            trace.add(sent(trace.size(), "10.0.1.7", 42000 + i, "10.0.2.20", 22, ""));
        }
        trace.add(sent(trace.size(), "10.0.1.5", 43000, "10.0.2.10", 80, "GET /index.html HTTP/1.1\r\n\r\n"));
        Path in = dir.resolve("in.pcap");
        writePcap(in, trace);
        obi = startObi(bin, in, dir.resolve("out.pcap"));

        try {
            await().atMost(WAIT)
                    .until(() -> alerts("app=ips&dpid=" + DPID).size() == 4
                            && alerts("app=firewall&dpid=" + DPID).size() == 2);

            // the IPS: sid, rev and msg of the Snort rule, 5-tuple, capture time and the packet
            List<JsonNode> ips = alerts("app=ips&rule=1000002");
            assertThat(ips).hasSize(4);
            for (int i = 0; i < 4; i++) {
                JsonNode a = ips.get(i);
                Sent p = trace.get(i);
                assertThat(a.path("rule").path("id").asLong()).isEqualTo(1000002);
                assertThat(a.path("rule").path("rev").asInt()).isEqualTo(1);
                assertThat(a.path("rule").path("message").asText()).isEqualTo("WEB-IIS cmd.exe access");
                assertThat(a.path("rule").path("origin").asText()).endsWith("ips.rules:3");
                assertThat(a.path("dpid").asLong()).isEqualTo(DPID);
                assertFiveTuple(a.path("headers"), p);
                assertThat(Instant.parse(a.path("time").asText())).isEqualTo(p.time());
                assertThat(Base64.getDecoder().decode(a.path("packet").asText()))
                        .isEqualTo(p.frame());
                assertThat(a.path("flowId").asLong()).isPositive();
            }
            assertThat(ips).extracting(a -> a.path("flowId").asLong()).doesNotHaveDuplicates();

            // the firewall: its rule line (rule number), message, 5-tuple and time; no packet asked for
            List<JsonNode> fw = alerts("app=firewall");
            assertThat(fw).hasSize(2);
            for (int i = 0; i < 2; i++) {
                JsonNode a = fw.get(i);
                Sent p = trace.get(4 + i);
                assertThat(a.path("rule").path("id").asLong()).isEqualTo(fwLine);
                assertThat(a.path("rule").path("message").asText()).isEqualTo("ssh to the admin host");
                assertThat(a.path("block").asText()).startsWith("alert-");
                assertFiveTuple(a.path("headers"), p);
                assertThat(Instant.parse(a.path("time").asText())).isEqualTo(p.time());
                assertThat(a.path("packet").isNull() || a.path("packet").isMissingNode())
                        .isTrue();
            }

            // filters: rule, dpid, lowest severity, since/until (inclusive)
            assertThat(alerts("rule=" + fwLine + "&dpid=" + DPID)).hasSize(2);
            assertThat(alerts("rule=1000002&app=firewall")).isEmpty();
            assertThat(alerts("dpid=" + (DPID + 1))).isEmpty();
            assertThat(alerts("minSeverity=1&dpid=" + DPID)).hasSize(6);
            int fwSeverity = fw.get(0).path("severity").asInt();
            assertThat(alerts("app=firewall&minSeverity=" + (fwSeverity + 1))).isEmpty();
            assertThat(alerts("app=ips&since=" + trace.get(2).time())).hasSize(2);
            assertThat(alerts("app=ips&until=" + trace.get(2).time())).hasSize(3);
            assertThat(alerts("since=" + trace.get(5).time() + "&dpid=" + DPID)).hasSize(1);
            given().get("/api/alerts?since=yesterday").then().statusCode(400);

            // the EVE log: every alert written once, with the same fields, rotated at 1 KB
            await().atMost(WAIT).until(() -> eve.written() >= 6);
            Path file = eve.file();
            assertThat(file.resolveSibling(file.getFileName() + ".1")).exists();
            List<JsonNode> lines = new ArrayList<>();
            for (int i = 9; i >= 0; i--) {
                Path f = i == 0 ? file : file.resolveSibling(file.getFileName() + "." + i);
                if (Files.exists(f)) {
                    assertThat(Files.size(f)).isLessThanOrEqualTo(1024);
                    for (String l : Files.readAllLines(f)) {
                        lines.add(new ObjectMapper().readTree(l));
                    }
                }
            }
            assertThat(lines).hasSize(6);
            assertThat(eve.dropped()).isZero();
            for (JsonNode a : concat(ips, fw)) {
                JsonNode h = a.path("headers");
                JsonNode line = lines.stream()
                        .filter(l ->
                                l.path("src_port").asInt() == h.path("srcPort").asInt())
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("alert " + a + " not in the EVE log: " + lines));
                Instant t = Instant.parse(a.path("time").asText());
                assertThat(line.path("event_type").asText()).isEqualTo("alert");
                assertThat(line.path("timestamp").asText())
                        .isEqualTo(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'+0000'")
                                .withZone(java.time.ZoneOffset.UTC)
                                .format(t));
                assertThat(line.path("flow_id").asLong())
                        .isEqualTo(a.path("flowId").asLong());
                assertThat(line.path("src_ip").asText())
                        .isEqualTo(h.path("srcIp").asText());
                assertThat(line.path("dest_ip").asText())
                        .isEqualTo(h.path("dstIp").asText());
                assertThat(line.path("dest_port").asInt())
                        .isEqualTo(h.path("dstPort").asInt());
                assertThat(line.path("proto").asText()).isEqualTo("TCP");
                assertThat(line.path("alert").path("signature_id").asLong())
                        .isEqualTo(a.path("rule").path("id").asLong());
                assertThat(line.path("alert").path("rev").asInt())
                        .isEqualTo(a.path("rule").path("rev").asInt());
                assertThat(line.path("alert").path("signature").asText())
                        .isEqualTo(a.path("rule").path("message").asText());
                assertThat(line.path("alert").path("severity").asInt())
                        .isEqualTo(a.path("severity").asInt());
                assertThat(line.path("alert").path("app").asText())
                        .isEqualTo(a.path("app").asText());
                assertThat(line.path("alert").path("block").asText())
                        .isEqualTo(a.path("block").asText());
                assertThat(line.path("dpid").asLong()).isEqualTo(DPID);
                if (a.path("packet").isTextual()) {
                    assertThat(line.path("packet").asText())
                            .isEqualTo(a.path("packet").asText());
                } else {
                    assertThat(line.has("packet")).isFalse();
                }
            }
            JsonNode newest = lines.stream()
                    .filter(l -> l.path("src_port").asInt() == trace.get(3).sport())
                    .findFirst()
                    .orElseThrow();
            assertThat(newest.path("timestamp").asText()).isEqualTo("2023-11-14T22:13:20.873456+0000");
            assertThat(Base64.getDecoder().decode(newest.path("packet").asText()))
                    .isEqualTo(trace.get(3).frame());
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(e.getMessage() + "\n--- OBI output ---\n" + obiLog(), e);
        }
    }

    private static List<JsonNode> concat(List<JsonNode> a, List<JsonNode> b) {
        List<JsonNode> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static void assertFiveTuple(JsonNode h, Sent p) {
        assertThat(h.path("srcIp").asText()).isEqualTo(p.src());
        assertThat(h.path("srcPort").asInt()).isEqualTo(p.sport());
        assertThat(h.path("dstIp").asText()).isEqualTo(p.dst());
        assertThat(h.path("dstPort").asInt()).isEqualTo(p.dport());
        assertThat(h.path("ipProto").asInt()).isEqualTo(6);
        assertThat(h.path("ethType").asInt()).isEqualTo(0x0800);
    }

    private List<JsonNode> alerts(String query) throws IOException {
        String body = given().get("/api/alerts?limit=1000&" + query)
                .then()
                .statusCode(200)
                .extract()
                .asString();
        List<JsonNode> out = new ArrayList<>();
        new ObjectMapper().readTree(body).forEach(out::add);
        return out;
    }

    private Process startObi(Path bin, Path in, Path out) throws IOException {
        int obiPort;
        try (ServerSocket s = new ServerSocket(0)) {
            obiPort = s.getLocalPort();
        }
        return new ProcessBuilder(
                        bin.toString(),
                        "--dpid",
                        String.valueOf(DPID),
                        "--listen",
                        "127.0.0.1:" + obiPort,
                        "--controller",
                        "http://127.0.0.1:" + port,
                        "--workers",
                        "1",
                        "--insecure",
                        "--device-map",
                        "in=pcap:" + in + ",out=pcap:" + out)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("obi.log").toFile())
                .start();
    }

    private String obiLog() {
        try {
            return Files.readString(dir.resolve("obi.log"));
        } catch (IOException e) {
            return "(no OBI log: " + e.getMessage() + ")";
        }
    }

    private static int lineOf(Path file, String text) throws IOException {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text) && lines.get(i).startsWith("alert")) {
                return i + 1;
            }
        }
        throw new AssertionError("no rule with " + text + " in " + file);
    }

    private static Sent sent(int index, String src, int sport, String dst, int dport, String payload) {
        return new Sent(
                src,
                sport,
                dst,
                dport,
                payload,
                FIRST_MICROS + index * 250_000L,
                frame(src, sport, dst, dport, payload));
    }

    /** Ethernet + IPv4 + TCP (SYN without payload, PSH+ACK with), correct IPv4 header checksum. */
    private static byte[] frame(String src, int sport, String dst, int dport, String payload) {
        byte[] data = payload.getBytes(StandardCharsets.US_ASCII);
        int ipLen = 20 + 20 + data.length;
        ByteBuffer f = ByteBuffer.allocate(14 + ipLen).order(ByteOrder.BIG_ENDIAN);
        f.put(new byte[] {2, 0, 0, 0, 2, 1}).put(new byte[] {2, 0, 0, 0, 1, 1}).putShort((short) 0x0800);
        int ip = f.position();
        f.put((byte) 0x45)
                .put((byte) 0)
                .putShort((short) ipLen)
                .putShort((short) 1)
                .putShort((short) 0x4000)
                .put((byte) 64)
                .put((byte) 6)
                .putShort((short) 0)
                .put(addr(src))
                .put(addr(dst));
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += ((f.get(ip + i) & 0xff) << 8) | (f.get(ip + i + 1) & 0xff);
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        f.putShort(ip + 10, (short) ~sum);
        f.putShort((short) sport)
                .putShort((short) dport)
                .putInt(1)
                .putInt(data.length == 0 ? 0 : 1)
                .put((byte) 0x50)
                .put((byte) (data.length == 0 ? 0x02 : 0x18))
                .putShort((short) 65535)
                .putShort((short) 0)
                .putShort((short) 0)
                .put(data);
        return f.array();
    }

    private static byte[] addr(String dotted) {
        String[] p = dotted.split("\\.");
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            b[i] = (byte) Integer.parseInt(p[i]);
        }
        return b;
    }

    /** Classic pcap, little-endian, microsecond timestamps, Ethernet. */
    private static void writePcap(Path file, List<Sent> packets) throws IOException {
        ByteBuffer out = ByteBuffer.allocate(24 + packets.size() * 2048).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(0xa1b2c3d4)
                .putShort((short) 2)
                .putShort((short) 4)
                .putInt(0)
                .putInt(0)
                .putInt(65535)
                .putInt(1);
        for (Sent p : packets) {
            out.putInt((int) (p.micros() / 1_000_000))
                    .putInt((int) (p.micros() % 1_000_000))
                    .putInt(p.frame().length)
                    .putInt(p.frame().length)
                    .put(p.frame());
        }
        Files.write(file, Arrays.copyOf(out.array(), out.position()));
    }

    /** A jar of an application's compiled classes (with its META-INF/services entry). */
    private static void jar(Path classes, Path jar) throws IOException {
        if (!Files.isDirectory(classes)) {
            throw new AssertionError(
                    "no compiled application at " + classes + " (build it: mvn -pl obc/server -am test-compile)");
        }
        try (OutputStream os = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(os);
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
    }

    private static Path repoRoot() {
        for (Path q = Path.of("").toAbsolutePath(); q != null; q = q.getParent()) {
            if (Files.isDirectory(q.resolve("obi")) && Files.isDirectory(q.resolve("obc"))) {
                return q;
            }
        }
        return Path.of("").toAbsolutePath();
    }
}
