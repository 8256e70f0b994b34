package org.openbox.apps.loadbalancer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.openbox.api.AppSettings;
import org.openbox.api.Application;
import org.openbox.api.Location;
import org.openbox.api.ProcessingGraph;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.match.FieldMatch;
import org.openbox.protocol.match.HeaderMatch;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;

class LoadBalancerAppTest {

    private static LoadBalancerConfig config(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return LoadBalancerConfig.from(AppSettings.of(p));
    }

    static Block target(ProcessingGraph g, String src, int port) {
        Connector c = g.connectors().stream()
                .filter(k -> k.src().equals(src) && k.srcPort() == port)
                .findFirst()
                .orElseThrow(() -> new AssertionError("output " + port + " of " + src + " is not connected"));
        return g.block(c.dst()).orElseThrow();
    }

    private static JsonNode rows(ProcessingGraph g) {
        return g.block(LoadBalancerGraph.CLASSIFIER).orElseThrow().config().get("match");
    }

    /** Index of the first row whose match contains an IPv4 packet with these addresses, per the protocol semantics. */
    private static int firstRow(List<HeaderMatch> rows, long src, long dst) {
        for (int i = 0; i < rows.size(); i++) {
            boolean all = true;
            for (FieldMatch f : rows.get(i).fields().values()) {
                long v =
                        switch (f.field()) {
                            case ETH_TYPE -> 0x0800;
                            case IPV4_SRC -> src;
                            case IPV4_DST -> dst;
                            default -> throw new AssertionError("unexpected field " + f.field());
                        };
                all &= f.contains(BigInteger.valueOf(v));
            }
            if (all) {
                return i;
            }
        }
        return -1;
    }

    private static List<HeaderMatch> parsed(ProcessingGraph g) {
        List<HeaderMatch> out = new ArrayList<>();
        rows(g).forEach(r -> out.add(HeaderMatchParser.parse(r)));
        return out;
    }

    @Test
    void isFoundByServiceLoader() {
        Application app = ServiceLoader.load(Application.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(a -> a.name().equals("loadbalancer"))
                .findFirst()
                .orElseThrow();
        assertTrue(app instanceof LoadBalancerApp);
        assertEquals(org.openbox.api.Priority.LOW, app.priority(), "last in a chain");
    }

    @Test
    void defaultsHashSourceAddressesOverTwoOutputs() {
        ProcessingGraph g = new LoadBalancerApp(LoadBalancerConfig.defaults())
                .statements()
                .get(0)
                .graph();
        JsonNode rows = rows(g);
        assertEquals(3, rows.size());
        assertEquals("0.0.0.0%0.0.0.1", rows.get(0).get("IPV4_SRC").asText());
        assertEquals("0.0.0.1%0.0.0.1", rows.get(1).get("IPV4_SRC").asText());
        assertTrue(rows.get(2).isEmpty());
        assertEquals(
                "out0",
                target(g, LoadBalancerGraph.CLASSIFIER, 0)
                        .config()
                        .get("devname")
                        .asText());
        assertEquals(
                "out1",
                target(g, LoadBalancerGraph.CLASSIFIER, 1)
                        .config()
                        .get("devname")
                        .asText());
        assertEquals("to-out0", target(g, LoadBalancerGraph.CLASSIFIER, 2).name(), "default: the first output");
        assertEquals(
                LoadBalancerGraph.CLASSIFIER,
                target(g, LoadBalancerGraph.INPUT, 0).name());
        assertEquals(4, g.blocks().size(), "in, split and one ToDevice per device");
    }

    @Test
    void routesComeFirstThenBucketsSpreadAddressesDeterministically() {
        LoadBalancerConfig cfg = config(
                "routes",
                "10.0.1.0/24=web1, 10.0.2.0/24=web2",
                "hash.outputs",
                "a,b,c",
                "hash.buckets",
                "8",
                "location",
                "segment:dc");
        ProcessingGraph g = new LoadBalancerApp(cfg).statements().get(0).graph();
        JsonNode rows = rows(g);
        assertEquals(2 + 8 + 1, rows.size());
        assertEquals("10.0.1.0/24", rows.get(0).get("IPV4_DST").asText());
        assertEquals("to-web2", target(g, LoadBalancerGraph.CLASSIFIER, 1).name());
        for (int b = 0; b < 8; b++) {
            assertEquals(
                    LoadBalancerGraph.blockName(List.of("a", "b", "c").get(b % 3)),
                    target(g, LoadBalancerGraph.CLASSIFIER, 2 + b).name(),
                    "bucket " + b);
        }
        assertEquals(Location.segment("dc"), cfg.location());

        // with the protocol's match semantics: routes win; otherwise the bucket is the address's low 3 bits
        List<HeaderMatch> parsed = parsed(g);
        Random rnd = new Random(42);
        int[] perBucket = new int[8];
        for (int i = 0; i < 2000; i++) {
            long src = rnd.nextInt() & 0xffffffffL;
            long dst = 0x0A000300L + rnd.nextInt(256); // 10.0.3.x: no route
            int row = firstRow(parsed, src, dst);
            assertEquals(2 + (int) (src & 7), row, "source " + LoadBalancerGraph.dotted((int) src));
            perBucket[row - 2]++;
            assertEquals(0, firstRow(parsed, src, 0x0A000105L), "10.0.1.5 takes the first route");
        }
        for (int n : perBucket) {
            assertTrue(n > 150, "every bucket is used: " + java.util.Arrays.toString(perBucket));
        }
    }

    @Test
    void routesOnlyAndDestinationHashing() {
        ProcessingGraph g = LoadBalancerGraph.build(
                config("routes", "192.168.0.0/16=inside", "routes.field", "src", "device.default", "rest"));
        JsonNode rows = rows(g);
        assertEquals(2, rows.size(), "no hashing when only routes are configured");
        assertEquals("192.168.0.0/16", rows.get(0).get("IPV4_SRC").asText());
        assertEquals("to-rest", target(g, LoadBalancerGraph.CLASSIFIER, 1).name());

        ProcessingGraph byDst = LoadBalancerGraph.build(config("hash.outputs", "x,y,z,w", "hash.field", "dst"));
        JsonNode r = rows(byDst);
        assertEquals(5, r.size());
        assertEquals("0.0.0.3%0.0.0.3", r.get(3).get("IPV4_DST").asText());
        assertEquals(
                MatchField.IPV4_DST,
                parsed(byDst).get(3).fields().keySet().stream()
                        .filter(f -> f != MatchField.ETH_TYPE)
                        .findFirst()
                        .orElseThrow());
    }

    @Test
    void configErrorsNameTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config("routes", "10.0.0.0/8"));
        assertTrue(e.getMessage().contains("routes"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> config("hash.outputs", "a,b,c", "hash.buckets", "6"));
        assertThrows(IllegalArgumentException.class, () -> config("hash.outputs", "a,b,c", "hash.buckets", "2"));
        assertThrows(IllegalArgumentException.class, () -> config("hash.outputs", "a,a"));
        assertThrows(IllegalArgumentException.class, () -> config("hash.field", "tcp_src"));
        assertEquals(
                List.of("out0", "out1"),
                config("routes", "", "hash.outputs", "").hashOutputs(),
                "blank = unset");
        assertEquals(4, config("hash.outputs", "a,b,c").buckets(), "smallest power of two >= 3");
        assertEquals(1, config("hash.outputs", "only").buckets());
    }
}
