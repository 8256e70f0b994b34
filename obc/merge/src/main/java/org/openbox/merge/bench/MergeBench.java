package org.openbox.merge.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.AppGraph;
import org.openbox.merge.Composition;
import org.openbox.merge.GraphMerger;
import org.openbox.merge.MergeOptions;
import org.openbox.merge.MergeResult;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * Merge time against merged-graph size ({@code ./openbox bench merge}).
 *
 * <p>Workload: a firewall with n rules on TCP_DST, each raising its own Alert, chained into
 * a load balancer with n-1 rules on IPV4_DST prefixes, each rewriting the destination,
 * plus a catch-all, merged as products only (fusion off: with it, the two classifiers would
 * stay in sequence and share one lookup, and the merged graph would not grow). The merged graph has one classifier of about n^2 rules and about n^2
 * Alert copies, so its connector count grows as 2 n^2. For each size: a warm-up, then the
 * median of several timed merges: "ms" is the CPU time of the merging thread (robust on a
 * shared machine), "wall_ms" the elapsed time. Prints one JSON object per size
 * ({"connectors": N, "blocks": N, "rules": N, "ms": X, "wall_ms": X}) and finally the least-squares growth
 * exponent of ms against connectors.
 *
 * <p>Options: --sizes n1,n2,... (default 12,17,25,35,50,71) --runs R (default 15) --json (accepted;
 * the output is always JSON lines).
 */
public final class MergeBench {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final MergeOptions PRODUCTS = new MergeOptions(MergeOptions.DEFAULT_MAX_RULES, true, true, false);

    private MergeBench() {}

    public static void main(String[] args) {
        int[] sizes = {12, 17, 25, 35, 50, 71};
        int runs = 15;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sizes" -> sizes = Arrays.stream(args[++i].split(","))
                        .mapToInt(Integer::parseInt)
                        .toArray();
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--json" -> {}
                case "-h", "--help" -> {
                    System.out.println("usage: ./openbox bench merge [--sizes n1,n2,...] [--runs R] [--json]");
                    return;
                }
                default -> {
                    System.err.println("bench merge: unknown option '" + args[i] + "'");
                    System.exit(2);
                }
            }
        }
        GraphMerger merger = new GraphMerger(Catalogue.load());
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        // warm the JIT on every size first, so the first sizes are not measured on cold code
        long warmAll = System.nanoTime();
        while (System.nanoTime() - warmAll < 3_000_000_000L) {
            for (int n : sizes) {
                merger.merge(
                        List.of(new AppGraph("firewall", 1, firewall(n)), new AppGraph("balancer", 0, balancer(n - 1))),
                        Composition.CHAIN,
                        PRODUCTS);
            }
        }
        List<double[]> points = new ArrayList<>();
        for (int n : sizes) {
            List<AppGraph> apps =
                    List.of(new AppGraph("firewall", 1, firewall(n)), new AppGraph("balancer", 0, balancer(n - 1)));
            MergeResult r = null;
            long warm = System.nanoTime();
            for (int w = 0; w < 5 || System.nanoTime() - warm < 1_000_000_000L; w++) { // let the JIT settle
                r = merger.merge(apps, Composition.CHAIN, PRODUCTS);
            }
            double[] ms = new double[runs];
            double[] wall = new double[runs];
            for (int k = 0; k < runs; k++) {
                long c0 = cpu.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                r = merger.merge(apps, Composition.CHAIN, PRODUCTS);
                wall[k] = (System.nanoTime() - t0) / 1e6;
                ms[k] = (cpu.getCurrentThreadCpuTime() - c0) / 1e6;
            }
            Arrays.sort(ms);
            Arrays.sort(wall);
            double median = ms[runs / 2];
            int connectors = r.merged().connectors().size();
            points.add(new double[] {connectors, median});
            System.out.printf(
                    Locale.ROOT,
                    "{\"connectors\": %d, \"blocks\": %d, \"rules\": %d, \"ms\": %.3f, \"wall_ms\": %.3f}%n",
                    connectors,
                    r.merged().blocks().size(),
                    r.report().rulesAfter(),
                    median,
                    wall[runs / 2]);
        }
        System.out.printf(Locale.ROOT, "{\"fit\": \"ms ~ connectors^k\", \"exponent\": %.3f}%n", exponent(points));
    }

    /** Least-squares slope of log(ms) against log(connectors). */
    static double exponent(List<double[]> pts) {
        double n = pts.size(), sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (double[] p : pts) {
            double x = Math.log(p[0]), y = Math.log(p[1]);
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
        }
        return (n * sxy - sx * sy) / (n * sxx - sx * sx);
    }

    static Graph firewall(int n) {
        List<Block> blocks = new ArrayList<>();
        List<Connector> conns = new ArrayList<>();
        blocks.add(new Block("FromDevice", "in", F.objectNode().put("devname", "eth0")));
        ObjectNode cc = F.objectNode();
        var match = cc.putArray("match");
        for (int i = 0; i < n; i++) {
            match.addObject().put("eth_type", "0x0800").put("ip_proto", 6).put("tcp_dst", 1000 + i);
            ObjectNode ac = F.objectNode();
            ac.putArray("alerts")
                    .addObject()
                    .put("message", "port " + (1000 + i))
                    .put("severity", 1);
            blocks.add(new Block("Alert", "alert" + i, ac));
            conns.add(new Connector("acl", i, "alert" + i, 0));
            conns.add(new Connector("alert" + i, 0, "out", 0));
        }
        blocks.add(new Block("HeaderClassifier", "acl", cc));
        blocks.add(new Block("ToDevice", "out", F.objectNode().put("devname", "eth1")));
        conns.add(new Connector("in", 0, "acl", 0));
        return new Graph(blocks, conns);
    }

    static Graph balancer(int n) {
        List<Block> blocks = new ArrayList<>();
        List<Connector> conns = new ArrayList<>();
        blocks.add(new Block("FromDevice", "in", F.objectNode().put("devname", "eth1")));
        ObjectNode cc = F.objectNode();
        var match = cc.putArray("match");
        for (int i = 0; i < n; i++) {
            match.addObject().put("eth_type", "0x0800").put("ipv4_dst", "10." + (i / 256) + "." + (i % 256) + ".0/24");
            blocks.add(new Block(
                    "NetworkHeaderFieldsRewriter",
                    "rw" + i,
                    F.objectNode().put("ipv4_dst", "172.16." + (i / 256) + "." + (i % 256 + 1))));
            conns.add(new Connector("split", i, "rw" + i, 0));
            conns.add(new Connector("rw" + i, 0, "out", 0));
        }
        match.addObject();
        conns.add(new Connector("split", n, "out", 0));
        blocks.add(new Block("HeaderClassifier", "split", cc));
        blocks.add(new Block("ToDevice", "out", F.objectNode().put("devname", "eth2")));
        conns.add(new Connector("in", 0, "split", 0));
        return new Graph(blocks, conns);
    }
}
