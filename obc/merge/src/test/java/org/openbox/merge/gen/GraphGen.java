package org.openbox.merge.gen;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * Decodes a {@link Genome} into a random application graph over a small universe so that
 * rules of different applications overlap often: header rules on ETH_TYPE, IP_PROTO,
 * TCP/UDP_DST, IPV4_SRC/DST, IP_DSCP (exact, masked, prefix, range, list terms), payload and
 * whole-frame regexes over {a, b, c}, Alert / Log statics, DecIpTtl, header rewrites, VLAN
 * push / pop, a Queue, terminals, and re-used subgraphs (blocks with in-degree > 1).
 */
public final class GraphGen {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    static final String[] IPS = {"10.0.0.1", "10.0.0.2", "10.0.1.1", "192.168.0.1"};
    static final int[] PORTS = {80, 443, 8080, 22};

    private final Genome g;
    private final String tag;
    private final List<Block> blocks = new ArrayList<>();
    private final List<Connector> connectors = new ArrayList<>();
    private final List<String> finished = new ArrayList<>();
    private int counter;
    private boolean sandwich;
    private boolean wide;

    private GraphGen(Genome g, String tag) {
        this.g = g;
        this.tag = tag;
    }

    /** A graph with input FromDevice(s) named by devs (e.g. "eth0", or "eth1","eth2"). */
    public static Graph graph(List<Integer> genes, String tag, String... devs) {
        return build(genes, tag, false, devs);
    }

    /**
     * A graph whose first block is a classifier followed on its outputs by statics and
     * modifiers, so that merging must move classifiers across them.
     */
    public static Graph sandwich(List<Integer> genes, String tag, String... devs) {
        return build(genes, tag, true, devs);
    }

    /**
     * A graph whose classifiers near the root have many rules (up to 24), so that the product
     * of two applications' classifiers is larger than the two apart and they are fused.
     */
    public static Graph wide(List<Integer> genes, String tag, String... devs) {
        return build(genes, tag, false, true, devs);
    }

    private static Graph build(List<Integer> genes, String tag, boolean sandwich, String... devs) {
        return build(genes, tag, sandwich, false, devs);
    }

    private static Graph build(List<Integer> genes, String tag, boolean sandwich, boolean wide, String... devs) {
        GraphGen gen = new GraphGen(new Genome(genes), tag);
        gen.sandwich = sandwich;
        gen.wide = wide;
        for (String d : devs) {
            String in = gen.add("FromDevice", F.objectNode().put("devname", d));
            gen.connect(in, 0, gen.node(0));
        }
        return new Graph(gen.blocks, gen.connectors);
    }

    private String add(String type, ObjectNode config) {
        String name = tag + type.charAt(0) + (counter++);
        blocks.add(new Block(type, name, config));
        return name;
    }

    private void connect(String src, int port, String dst) {
        if (dst != null) connectors.add(new Connector(src, port, dst, 0));
    }

    /** A subgraph; returns its entry block, or null for "leave unconnected". */
    private String node(int depth) {
        int c = depth >= 4 ? 0 : g.next(100);
        if ((sandwich || wide) && depth == 0) c = 40; // a classifier
        else if (sandwich && depth <= 2) c = 64 + c % 24; // a static or a modifier
        if (c >= 92 && !finished.isEmpty()) return finished.get(g.next(finished.size()));
        String name;
        if (c < 24 || c >= 92) {
            int t = g.next(10);
            name = switch (t) {
                case 6 -> add("Discard", F.objectNode());
                case 7 -> null;
                case 8 -> add("ToDump", F.objectNode().put("filename", "out.pcap"));
                default -> add("ToDevice", F.objectNode().put("devname", t % 2 == 0 ? "eth1" : "eth2"));
            };
        } else if (c < 64 || (depth <= 1 && c < 84)) { // classifiers near the root: they combine
            name = classifier(depth);
        } else if (c < 76) {
            boolean alert = g.chance(50);
            name = alert
                    ? add("Alert", alertConfig())
                    : add("Log", F.objectNode().put("message", "log" + g.next(3)));
            connect(name, 0, node(depth + 1));
        } else if (c < 88) {
            name = modifier(depth);
        } else {
            name = add("Queue", F.objectNode().put("capacity", 100));
            connect(name, 0, node(depth + 1));
        }
        if (name != null) finished.add(name);
        return name;
    }

    private ObjectNode alertConfig() {
        ObjectNode c = F.objectNode();
        c.putArray("alerts").addObject().put("message", "alert" + g.next(3)).put("severity", 1 + g.next(5));
        return c;
    }

    private String modifier(int depth) {
        String m;
        int k = g.next(7);
        if (k >= 5) k = 1; // rewrites are the interesting case
        switch (k) {
            case 0 -> {
                m = add("DecIpTtl", F.objectNode());
                connect(m, 0, node(depth + 1));
                if (g.chance(50)) connect(m, 1, node(depth + 1));
                return m;
            }
            case 1 -> {
                ObjectNode c = F.objectNode();
                switch (g.next(5)) {
                    case 0 -> c.put("tcp_dst", PORTS[g.next(PORTS.length)]);
                    case 1 -> c.put("ipv4_dst", IPS[g.next(IPS.length)]);
                    case 2 -> c.put("ipv4_ttl", 5);
                    case 3 -> c.put("eth_src", "02:00:00:00:00:0" + g.next(9));
                    default -> c.put("ipv4_dscp", g.next(3) * 10);
                }
                m = add("NetworkHeaderFieldsRewriter", c);
            }
            case 2 -> m = add("VlanEncapsulate", F.objectNode().put("vlan_vid", 1 + g.next(3)));
            case 3 -> m = add("VlanDecapsulate", F.objectNode());
            default -> m = add("DecIpTtl", F.objectNode().put("active", false));
        }
        connect(m, 0, node(depth + 1));
        return m;
    }

    private String classifier(int depth) {
        int kind = wide && depth == 0 && g.chance(70) ? 0 : g.next(10); // wide roots: mostly header rules
        int n = wide && depth <= 1 ? 6 + g.next(19) : 1 + g.next(3);
        String name;
        int outputs = n;
        if (kind <= 4) {
            ObjectNode c = F.objectNode();
            ArrayNode m = c.putArray("match");
            boolean byPort = g.chance(50);
            for (int i = 0; i < n; i++) m.add(wide && depth <= 1 ? wideMatch(i, byPort) : headerMatch());
            name = add("HeaderClassifier", c);
        } else if (kind <= 6) {
            ObjectNode c = F.objectNode();
            ArrayNode m = c.putArray("match");
            for (int i = 0; i < n; i++) {
                ObjectNode r = m.addObject();
                r.set("header_match", headerMatch());
                ArrayNode pm = r.putArray("payload_match");
                for (int p = g.next(3); p > 0; p--)
                    pm.addObject().put("pattern", regex()).put("is_regex", true);
            }
            name = add("HeaderPayloadClassifier", c);
        } else if (kind == 7) {
            ObjectNode c = F.objectNode();
            ArrayNode p = c.putArray("pattern");
            for (int i = 0; i < n; i++) p.add(regex());
            c.put("payload_only", !g.chance(20));
            name = add("RegexClassifier", c);
        } else {
            ObjectNode c = F.objectNode();
            ArrayNode p = c.putArray("pattern");
            for (int i = 0; i < n; i++) p.add(regex());
            c.put("payload_only", !g.chance(20));
            c.put("match_all", g.chance(40));
            name = add("RegexMatcher", c);
            outputs = 2;
        }
        for (int i = 0; i < outputs; i++) connect(name, i, node(depth + 1));
        return name;
    }

    private String regex() {
        String[] atoms = {"a", "b", "c", "ab", "a.c", "[bc]", "b+", "^a", "c$", "ca"};
        String r = atoms[g.next(atoms.length)];
        if (g.chance(25)) r += atoms[g.next(atoms.length)];
        return r;
    }

    /**
     * Rule i of a wide classifier: by port, disjoint TCP port blocks (two such classifiers
     * meet rarely: their product is small); otherwise a destination and a port term from the
     * small universe (they meet most rules of the other kind: their product is large).
     */
    private ObjectNode wideMatch(int i, boolean byPort) {
        ObjectNode m = F.objectNode().put("eth_type", "0x0800").put("ip_proto", 6);
        if (byPort) return m.put("tcp_dst", "[" + (1024 + 2500 * i) + ":" + (1024 + 2500 * i + 2499) + "]");
        m.put("ipv4_dst", i % 5 == 4 ? "10.0.0.0/24" : IPS[i % IPS.length]);
        if (g.chance(50)) m.put("ipv4_src", ipTerm());
        return m;
    }

    /** A header match that meets the field prerequisites. */
    private ObjectNode headerMatch() {
        ObjectNode m = F.objectNode();
        if (g.chance(10)) m.put("vlan_vid", g.chance(50) ? "1" : "[1:2]");
        int eth = g.next(6);
        if (eth == 0 && wide && g.chance(80)) eth = 1; // wide classifiers: few catch-alls
        if (eth == 0) return m; // any packet
        if (eth == 5) {
            m.put("eth_type", "0x0806");
            return m;
        }
        m.put("eth_type", eth == 4 ? "[0x0800,0x86dd]" : "0x0800");
        if (eth == 4) return m;
        if (g.chance(40)) m.put("ipv4_src", ipTerm());
        if (g.chance(40)) m.put("ipv4_dst", ipTerm());
        if (g.chance(15)) m.put("ip_dscp", g.chance(50) ? "10" : "[0:10]");
        int proto = g.next(4);
        if (proto == 1 || proto == 3) {
            m.put("ip_proto", 6);
            if (g.chance(70)) m.put("tcp_dst", portTerm());
        } else if (proto == 2) {
            m.put("ip_proto", 17);
            if (g.chance(70)) m.put("udp_dst", portTerm());
        }
        return m;
    }

    private String ipTerm() {
        return switch (g.next(5)) {
            case 0, 1 -> IPS[g.next(IPS.length)];
            case 2 -> "10.0.0.0/24";
            case 3 -> "10.0.0.0%255.0.254.0"; // a non-prefix mask
            default -> "[" + IPS[g.next(IPS.length)] + "," + IPS[g.next(IPS.length)] + "]";
        };
    }

    private String portTerm() {
        return switch (g.next(6)) {
            case 0, 1 -> String.valueOf(PORTS[g.next(PORTS.length)]);
            case 2 -> "[80:443]";
            case 3 -> "[1024:]";
            case 4 -> "0x50%0xff"; // low byte 80: a non-prefix mask
            default -> "[22,[80:100]]";
        };
    }
}
