package org.openbox.apps.ips;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.openbox.api.AppSettings;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.AppGraph;
import org.openbox.merge.Composition;
import org.openbox.merge.GraphMerger;
import org.openbox.merge.MergeOptions;
import org.openbox.merge.MergeResult;
import org.openbox.merge.core.CatalogueBlockInfo;
import org.openbox.merge.interpret.Equivalence;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * A firewall chained into the IPS with the Snort web rules: the product of the two
 * classifiers would be far larger than both, so the merge keeps them in sequence and the
 * firewall's classifier performs the IPS's header lookups in its own pass ({@code fuse}).
 */
class FirewallThenIpsMergeTest {
    private static final Path DATA = Path.of(System.getProperty("openbox.data", "../../../shared/data"));
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final Catalogue CATALOGUE = Catalogue.load();

    /** 300 allow rules on source /24s of 10.0.0.0/8 (every 10th drops), then drop. */
    private static Graph firewall() {
        ObjectNode c = F.objectNode();
        ArrayNode m = c.putArray("match");
        List<Connector> conns = new ArrayList<>(List.of(new Connector("in", 0, "acl", 0)));
        for (int i = 0; i < 300; i++) {
            m.addObject().put("eth_type", "0x0800").put("ipv4_src", "10." + (i / 16) + "." + (i % 16) + ".0/24");
            conns.add(new Connector("acl", i, i % 10 == 9 ? "drop" : "out", 0));
        }
        m.addObject();
        conns.add(new Connector("acl", 300, "drop", 0));
        return new Graph(
                List.of(
                        new Block("FromDevice", "in", F.objectNode().put("devname", "in")),
                        new Block("HeaderClassifier", "acl", c),
                        new Block("ToDevice", "out", F.objectNode().put("devname", "out")),
                        new Block("Discard", "drop", F.objectNode())),
                conns);
    }

    private static Graph ips() {
        Properties p = new Properties();
        p.setProperty("rules.file", DATA.resolve("snort-web.rules").toString());
        p.setProperty("variables.file", DATA.resolve("snort-vars.conf").toString());
        return new IpsApp(IpsConfig.from(AppSettings.of(p)))
                .statements()
                .get(0)
                .graph()
                .toGraph();
    }

    private static byte[] tcp(int src3, int dport, String payload) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[] {0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0});
        int total = 40 + payload.length();
        b.writeBytes(new byte[] {
            0x45,
            0,
            (byte) (total >> 8),
            (byte) total,
            0,
            1,
            0,
            0,
            64,
            6,
            0,
            0,
            10,
            (byte) src3,
            3,
            4,
            (byte) 192,
            0,
            2,
            80
        });
        b.writeBytes(new byte[] {
            (byte) 0xc0, 0, (byte) (dport >> 8), (byte) dport, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0x20, 0, 0, 0, 0, 0
        });
        b.writeBytes(payload.getBytes(StandardCharsets.ISO_8859_1));
        return b.toByteArray();
    }

    private static Block block(MergeResult r, String name) {
        return r.merged().blocks().stream()
                .filter(b -> b.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void headerPartsAreFusedNotMultiplied() {
        List<AppGraph> apps = List.of(new AppGraph("fw", 100, firewall()), new AppGraph("ips", 50, ips()));
        MergeResult r = new GraphMerger(CATALOGUE).merge(apps, Composition.CHAIN, MergeOptions.defaults());
        assertTrue(r.report().combined().isEmpty(), r.report().summary());
        // the IPS is split into a header stage and a payload stage (its header-only catch-all);
        // the firewall fuses the header stage, which fuses the payload stage in turn
        assertEquals(2, r.report().fused().size(), r.report().summary());
        String acl = r.provenance().mergedBlocksOf("fw", "acl").get(0);
        List<String> sigs = r.provenance().mergedBlocksOf("ips", IpsGraph.CLASSIFIER);
        Block fusing = block(r, acl);
        assertEquals("HeaderClassifier", fusing.type());
        String header = fusing.config().get("fuse").get(0).asText();
        assertTrue(sigs.contains(header), header + " implements the IPS signatures");
        Block stage = block(r, header);
        Block payload = block(r, stage.config().get("fuse").get(0).asText());
        assertEquals("HeaderPayloadClassifier", payload.type());
        assertTrue(sigs.contains(payload.name()));
        // rule counts add up, no product: only the header stage is added, unreachable rules dropped
        int stageRules = stage.config().get("match").size();
        assertTrue(
                r.report().rulesAfter() <= r.report().rulesBefore() + stageRules,
                r.report().summary());
        assertTrue(
                r.report().rulesAfter() > r.report().rulesBefore() - 50,
                r.report().summary());
        Equivalence eq = new Equivalence(apps, Composition.CHAIN, r, new CatalogueBlockInfo(CATALOGUE));
        String[] payloads = {
            "GET /index.html HTTP/1.0\r\n\r\n",
            "GET /cgi-bin/phf?Qalias=x HTTP/1.0\r\n\r\n",
            "GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
            "POST /x.php?cmd=cat%20/etc/passwd HTTP/1.1\r\n\r\n",
            "hello"
        };
        for (String in : eq.inputs()) {
            for (int s = 0; s < 20; s++) {
                for (int port : new int[] {80, 443, 8080}) {
                    for (String p : payloads) assertNull(eq.check(in, tcp(s, port, p)));
                }
            }
        }
    }
}
