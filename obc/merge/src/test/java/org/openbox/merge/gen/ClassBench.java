package org.openbox.merge.gen;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * Firewall graphs and packets from the shared ClassBench data (never copied into the
 * repository): {@code OPENBOX_DATA}, the system property {@code openbox.data}, or
 * {@code ../shared/data} next to the checkout. Rules are translated like the firewall
 * application does: one classifier row per header match (a port constraint with a wildcard
 * protocol gives a TCP row, a UDP row and an other-protocols row).
 */
public final class ClassBench {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private ClassBench() {}

    /** The shared data directory. */
    public static Path data() {
        String p = System.getProperty("openbox.data", System.getenv("OPENBOX_DATA"));
        return Path.of(p != null ? p : "../../../shared/data");
    }

    /** The rows of each rule of a ClassBench file, in file order. */
    public static List<List<ObjectNode>> rules(String file) throws IOException {
        List<List<ObjectNode>> out = new ArrayList<>();
        for (String line : Files.readAllLines(data().resolve(file))) {
            if (line.isBlank()) continue;
            String[] f = line.strip().substring(1).split("\t");
            String src = prefix(f[0]), dst = prefix(f[1]), sport = range(f[2]), dport = range(f[3]);
            String[] proto = f[4].split("/");
            Integer p = Integer.decode(proto[1].strip()) == 0xff ? Integer.decode(proto[0].strip()) : null;
            List<ObjectNode> rows = new ArrayList<>();
            boolean ports = sport != null || dport != null;
            if (p != null) {
                rows.add(row(p, src, dst, p == 6 || p == 17 ? sport : null, p == 6 || p == 17 ? dport : null));
            } else if (!ports) {
                rows.add(row(null, src, dst, null, null));
            } else {
                rows.add(row(6, src, dst, sport, dport));
                rows.add(row(17, src, dst, sport, dport));
                rows.add(row(null, src, dst, null, null).put("ip_proto", "[[0:5],[7:16],[18:255]]"));
            }
            out.add(rows);
        }
        return out;
    }

    /**
     * A firewall: FromDevice eth0 -> HeaderClassifier "rules" (the rows, then a catch-all)
     * -> ToDevice eth1 for allowed rows, Discard for every {@code dropEvery}-th rule and the
     * catch-all (dropEvery 0: every rule allows).
     */
    public static Graph firewall(List<List<ObjectNode>> rules, int dropEvery) {
        ObjectNode c = F.objectNode();
        ArrayNode match = c.putArray("match");
        List<Connector> conns = new ArrayList<>();
        conns.add(new Connector("in", 0, "rules", 0));
        for (int r = 0; r < rules.size(); r++) {
            boolean drop = dropEvery > 0 && r % dropEvery == dropEvery - 1;
            for (ObjectNode row : rules.get(r)) {
                conns.add(new Connector("rules", match.size(), drop ? "drop" : "out", 0));
                match.add(row);
            }
        }
        conns.add(new Connector("rules", match.size(), "drop", 0));
        match.addObject();
        return new Graph(
                List.of(
                        new Block("FromDevice", "in", F.objectNode().put("devname", "eth0")),
                        new Block("HeaderClassifier", "rules", c),
                        new Block("ToDevice", "out", F.objectNode().put("devname", "eth1")),
                        new Block("Discard", "drop", F.objectNode())),
                conns);
    }

    /** Ethernet/IPv4 packets with the 5-tuples of the first n lines of a ClassBench trace. */
    public static List<byte[]> packets(String trace, int n) throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(data().resolve(trace))) {
            if (out.size() >= n) break;
            String[] t = line.split("\t");
            int proto = Integer.parseInt(t[4]);
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.writeBytes(new byte[] {0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0});
            int l4 = proto == 6 ? 20 : 8;
            b.writeBytes(new byte[] {0x45, 0, 0, (byte) (20 + l4), 0, 1, 0, 0, 64, (byte) proto, 0, 0});
            u32(b, Long.parseLong(t[0]));
            u32(b, Long.parseLong(t[1]));
            b.write(Integer.parseInt(t[2]) >> 8);
            b.write(Integer.parseInt(t[2]));
            b.write(Integer.parseInt(t[3]) >> 8);
            b.write(Integer.parseInt(t[3]));
            b.writeBytes(new byte[l4 - 4]);
            out.add(b.toByteArray());
        }
        return out;
    }

    private static void u32(ByteArrayOutputStream b, long v) {
        for (int s = 24; s >= 0; s -= 8) b.write((int) (v >> s));
    }

    private static ObjectNode row(Integer proto, String src, String dst, String sport, String dport) {
        ObjectNode m = F.objectNode().put("eth_type", "0x0800");
        if (proto != null) m.put("ip_proto", proto);
        if (src != null) m.put("ipv4_src", src);
        if (dst != null) m.put("ipv4_dst", dst);
        String l4 = proto != null && proto == 6 ? "tcp" : "udp";
        if (sport != null) m.put(l4 + "_src", sport);
        if (dport != null) m.put(l4 + "_dst", dport);
        return m;
    }

    private static String prefix(String p) {
        return p.strip().endsWith("/0") ? null : p.strip();
    }

    private static String range(String r) {
        String[] lohi = r.split(":");
        int lo = Integer.parseInt(lohi[0].strip()), hi = Integer.parseInt(lohi[1].strip());
        if (lo == 0 && hi == 65535) return null;
        return lo == hi ? Integer.toString(lo) : "[" + lo + ":" + hi + "]";
    }
}
