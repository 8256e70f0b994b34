package org.openbox.controller.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.AlertRule;
import org.openbox.controller.isolation.IsolationProperties;
import org.openbox.protocol.message.PacketHeaders;
import org.springframework.util.unit.DataSize;

/** The EVE alert log on its own: the line's fields, rotation by size, the bounded queue, flow ids. */
class EveAlertLogTest {

    @TempDir
    Path dir;

    private final ObjectMapper json = new ObjectMapper();

    private static AlertRecord alert(int i, PacketHeaders h) {
        return new AlertRecord(
                Instant.parse("2026-01-02T03:04:05.000006Z").plusSeconds(i),
                "ips",
                9,
                "sid-7",
                "m_sid-7",
                "[sid:7] probe",
                3,
                new AlertRule(7, 2, "probe", "ips.rules:4"),
                h,
                FlowIds.of(h),
                i % 2 == 0 ? "AAEC" : null,
                Instant.parse("2026-01-02T03:04:06Z").plusSeconds(i));
    }

    private static PacketHeaders tcp(String src, int sport, String dst, int dport) {
        return new PacketHeaders(null, null, 0x0800, src, dst, 6, sport, dport, null, null);
    }

    private EveAlertLog log(long maxBytes, int files, int queue, boolean enabled) {
        return new EveAlertLog(
                new EveLogProperties(enabled, dir.resolve("eve.json"), DataSize.ofBytes(maxBytes), files, queue),
                new IsolationProperties(Map.of(), "pass", Map.of(), dir),
                new SimpleMeterRegistry());
    }

    @Test
    void writesOneEveObjectPerAlert() throws Exception {
        EveAlertLog eve = log(1 << 20, 3, 100, true);
        eve.offer(alert(0, tcp("10.0.0.1", 1234, "10.0.0.2", 80)));
        eve.offer(alert(
                1,
                new PacketHeaders(
                        "02:00:00:00:00:01", "ff:ff:ff:ff:ff:ff", 0x0806, null, null, null, null, null, null, null)));
        eve.offer(
                alert(3, new PacketHeaders(null, null, 0x86dd, "2001:db8::1", "2001:db8::2", 58, null, null, 128, 0)));
        await().atMost(Duration.ofSeconds(10)).until(() -> eve.written() == 3);
        eve.destroy();
        List<String> lines = Files.readAllLines(dir.resolve("eve.json"));
        assertThat(lines).hasSize(3);
        JsonNode tcp = json.readTree(lines.get(0));
        assertThat(tcp.path("timestamp").asText()).isEqualTo("2026-01-02T03:04:05.000006+0000");
        assertThat(tcp.path("event_type").asText()).isEqualTo("alert");
        assertThat(tcp.path("flow_id").asLong()).isEqualTo(FlowIds.of(tcp("10.0.0.1", 1234, "10.0.0.2", 80)));
        assertThat(tcp.path("src_ip").asText()).isEqualTo("10.0.0.1");
        assertThat(tcp.path("src_port").asInt()).isEqualTo(1234);
        assertThat(tcp.path("dest_ip").asText()).isEqualTo("10.0.0.2");
        assertThat(tcp.path("dest_port").asInt()).isEqualTo(80);
        assertThat(tcp.path("proto").asText()).isEqualTo("TCP");
        assertThat(tcp.path("alert").path("signature_id").asLong()).isEqualTo(7);
        assertThat(tcp.path("alert").path("rev").asInt()).isEqualTo(2);
        assertThat(tcp.path("alert").path("signature").asText()).isEqualTo("probe");
        assertThat(tcp.path("alert").path("severity").asInt()).isEqualTo(3);
        assertThat(tcp.path("alert").path("app").asText()).isEqualTo("ips");
        assertThat(tcp.path("alert").path("block").asText()).isEqualTo("sid-7");
        assertThat(tcp.path("dpid").asLong()).isEqualTo(9);
        assertThat(tcp.path("packet").asText()).isEqualTo("AAEC");
        JsonNode arp = json.readTree(lines.get(1));
        assertThat(arp.has("src_ip")).isFalse();
        assertThat(arp.has("packet")).isFalse();
        assertThat(arp.path("ether").path("src_mac").asText()).isEqualTo("02:00:00:00:00:01");
        assertThat(arp.path("ether").path("ether_type").asInt()).isEqualTo(0x0806);
        JsonNode icmp6 = json.readTree(lines.get(2));
        assertThat(icmp6.path("proto").asText()).isEqualTo("IPv6-ICMP");
        assertThat(icmp6.path("icmp_type").asInt()).isEqualTo(128);
        assertThat(icmp6.has("src_port")).isFalse();
    }

    @Test
    void rotatesBySizeKeepingABoundedNumberOfFiles() throws Exception {
        EveAlertLog eve = log(1024, 3, 1000, true);
        for (int i = 0; i < 40; i++) {
            eve.offer(alert(i, tcp("10.0.0.1", 1000 + i, "10.0.0.2", 80)));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> eve.written() == 40);
        eve.destroy();
        Path current = dir.resolve("eve.json");
        List<Integer> ports = new ArrayList<>();
        for (Path f : List.of(dir.resolve("eve.json.2"), dir.resolve("eve.json.1"), current)) {
            assertThat(f).exists();
            assertThat(Files.size(f)).isLessThanOrEqualTo(1024);
            for (String l : Files.readAllLines(f)) {
                ports.add(json.readTree(l).path("src_port").asInt());
            }
        }
        assertThat(dir.resolve("eve.json.3")).doesNotExist();
        // the newest alerts, in order, without a gap; the oldest files are gone
        assertThat(ports).isSorted().doesNotHaveDuplicates().contains(1039);
        assertThat(ports.size()).isLessThan(40);
        assertThat(ports.get(ports.size() - 1) - ports.get(0)).isEqualTo(ports.size() - 1);
    }

    @Test
    void aFullQueueDropsAndCountsInsteadOfBlocking() throws Exception {
        Files.createDirectories(dir.resolve("eve.json")); // a directory where the file should be: every write fails
        EveAlertLog eve = log(1 << 20, 2, 4, true);
        long start = System.nanoTime();
        for (int i = 0; i < 10_000; i++) {
            eve.offer(alert(i, tcp("10.0.0.1", i % 60000, "10.0.0.2", 80)));
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(10)).until(() -> eve.dropped() == 10_000);
        assertThat(eve.written()).isZero();
        eve.destroy();
    }

    @Test
    void disabledWritesNothing() throws Exception {
        EveAlertLog eve = log(1 << 20, 2, 4, false);
        eve.offer(alert(0, tcp("10.0.0.1", 1, "10.0.0.2", 2)));
        eve.destroy();
        assertThat(dir.resolve("eve.json")).doesNotExist();
        assertThat(eve.dropped()).isZero();
    }

    @Test
    void flowIdsAreStableAndTheSameBothWays() {
        long ab = FlowIds.of(tcp("10.0.0.1", 1234, "10.0.0.2", 80));
        assertThat(FlowIds.of(tcp("10.0.0.2", 80, "10.0.0.1", 1234))).isEqualTo(ab);
        assertThat(FlowIds.of(tcp("10.0.0.1", 1235, "10.0.0.2", 80))).isNotEqualTo(ab);
        assertThat(ab).isPositive().isLessThan(1L << 53);
        assertThat(FlowIds.of(PacketHeaders.NONE)).isZero();
        // the hash of a fixed text: the same on every controller and after restarts
        assertThat(ab)
                .isEqualTo(FlowIds.of(
                        new PacketHeaders("x", "y", 0x0800, "10.0.0.1", "10.0.0.2", 6, 1234, 80, null, null)));
    }
}
