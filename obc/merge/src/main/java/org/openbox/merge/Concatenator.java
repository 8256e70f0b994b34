package org.openbox.merge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.openbox.merge.core.BlockInfo;
import org.openbox.merge.core.Kind;
import org.openbox.merge.core.Rule;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * The naive service chain: the applications' graphs joined at their terminals and nothing
 * else (no tree unfolding, no classifier combining, no re-sharing). It is the baseline the
 * merge is measured and checked against: the same packets take the same paths through the
 * same blocks as they would through one OBI per application.
 *
 * <p>The joins are those of {@link GraphMerger}'s chain: applications in priority order
 * (higher first, then list order); every output terminal (ToDevice, ToDump) of the graph so
 * far is removed and the connectors into it lead to what the next application's input
 * terminal fed (its only input terminal, or, when it has several, the FromDevice with the
 * same devname; an output terminal without a match, or a ToDevice on one of its own
 * application's input devices (a reply, {@link ChainExits}), stays an exit). The joined input
 * terminals are removed too; an input terminal that fed nothing turns the join into a drop
 * (an unconnected output). Blocks are named {@code app.block}, each with its one origin;
 * classifier rules keep their indexes.
 */
public final class Concatenator {
    private final BlockInfo info;

    public Concatenator(BlockInfo info) {
        this.info = info;
    }

    /** Mutable connector while joining. */
    private static final class Edge {
        String src, dst;
        int srcPort, dstPort;

        Edge(String src, int srcPort, String dst, int dstPort) {
            this.src = src;
            this.srcPort = srcPort;
            this.dst = dst;
            this.dstPort = dstPort;
        }
    }

    public MergeResult concat(List<AppGraph> graphs) {
        if (graphs.isEmpty()) throw new MergeException("nothing to concatenate: no graph given");
        List<AppGraph> ordered = new ArrayList<>(graphs);
        ordered.sort(Comparator.comparingInt(AppGraph::priority).reversed()); // stable
        Set<String> apps = new HashSet<>();
        for (AppGraph g : ordered) {
            if (!apps.add(g.app())) throw new MergeException("application name '" + g.app() + "' is used twice");
        }
        TreeBuilder tb = new TreeBuilder(info);
        Map<String, Block> blocks = new LinkedHashMap<>();
        Map<String, Kind> kinds = new LinkedHashMap<>();
        Map<String, Origin> origins = new LinkedHashMap<>();
        Map<String, Integer> ruleCounts = new LinkedHashMap<>();
        List<Edge> edges = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        int blocksBefore = 0, connectorsBefore = 0, rulesBefore = 0;
        Map<String, Set<String>> inputDevices = new HashMap<>(); // app -> devnames of its input terminals
        for (AppGraph g : ordered) {
            TreeBuilder.Checked c = tb.check(g);
            String app = g.app();
            for (String in : c.inputs()) {
                String dev = devname(c.blocks().get(in));
                if (dev != null)
                    inputDevices.computeIfAbsent(app, a -> new HashSet<>()).add(dev);
            }
            blocksBefore += c.blocks().size();
            connectorsBefore += g.graph().connectors().size();
            Set<String> previousExits = new java.util.LinkedHashSet<>();
            for (var e : kinds.entrySet()) if (e.getValue() == Kind.OUTPUT) previousExits.add(e.getKey());
            for (Block b : c.blocks().values()) {
                String name = app + "." + b.name();
                if (blocks.containsKey(name)) {
                    throw new MergeException(
                            app + ": block name '" + name + "' clashes with an earlier application's block");
                }
                blocks.put(name, new Block(b.type(), name, b.config()));
                kinds.put(name, c.kinds().get(b.name()));
                origins.put(name, new Origin(app, b.name()));
                if (c.kinds().get(b.name()) == Kind.CLASSIFIER) {
                    // rules read by the merge, else one per output (opaque classifiers)
                    List<Rule> r = c.rules().get(b.name());
                    int n = r != null ? r.size() : c.outputs().get(b.name());
                    ruleCounts.put(name, n);
                    rulesBefore += n;
                }
            }
            for (Connector k : g.graph().connectors()) {
                edges.add(new Edge(app + "." + k.src(), k.srcPort(), app + "." + k.dst(), k.dstPort()));
            }
            if (g == ordered.get(0)) continue; // nothing to join the first application to
            List<String> inputs = c.inputs().stream().map(i -> app + "." + i).toList();
            Set<String> joined = new HashSet<>();
            if (inputs.size() == 1) joined.add(inputs.get(0));
            int exits = 0;
            for (String exit : previousExits) {
                Set<String> own = inputDevices.getOrDefault(origins.get(exit).app(), Set.of());
                if (ChainExits.repliesToInput(devname(blocks.get(exit)), own)) continue;
                String entry = entryFor(blocks.get(exit), inputs, blocks);
                if (entry == null) continue;
                joined.add(entry);
                Edge feed = edges.stream()
                        .filter(e -> e.src.equals(entry))
                        .findFirst()
                        .orElse(null);
                for (Edge e : edges) {
                    if (!exit.equals(e.dst)) continue;
                    if (feed == null) {
                        e.dst = null; // removed below: the join drops
                    } else {
                        e.dst = feed.dst;
                        e.dstPort = feed.dstPort;
                    }
                }
                remove(exit, blocks, kinds, origins);
                exits++;
            }
            for (String in : joined) {
                edges.removeIf(e -> e.src.equals(in));
                remove(in, blocks, kinds, origins);
            }
            edges.removeIf(e -> e.dst == null);
            notes.add("joined " + exits + " output terminal(s) to " + app + " without merging");
        }
        List<Block> outBlocks = new ArrayList<>(blocks.values());
        List<Connector> outConnectors = edges.stream()
                .map(e -> new Connector(e.src, e.srcPort, e.dst, e.dstPort))
                .toList();
        Provenance.Builder prov = new Provenance.Builder();
        int rulesAfter = 0;
        for (String name : blocks.keySet()) {
            Origin o = origins.get(name);
            prov.block(name, List.of(o));
            Integer n = ruleCounts.get(name);
            if (n == null) continue;
            rulesAfter += n;
            for (int k = 0; k < n; k++) prov.rule(name, o.app(), o.block(), k, k);
        }
        MergeReport report = new MergeReport(
                blocksBefore,
                connectorsBefore,
                rulesBefore,
                outBlocks.size(),
                outConnectors.size(),
                rulesAfter,
                List.of(),
                List.of(),
                List.of(),
                notes);
        return new MergeResult(new Graph(outBlocks, outConnectors), prov.build(), report);
    }

    /** The next application's input terminal an exit leads into, or null when it stays an exit. */
    private static String entryFor(Block exit, List<String> inputs, Map<String, Block> blocks) {
        if (inputs.size() == 1) return inputs.get(0);
        String dev = devname(exit);
        if (dev == null) return null;
        for (String in : inputs) if (dev.equals(devname(blocks.get(in)))) return in;
        return null;
    }

    private static String devname(Block b) {
        if (b.config() == null || !b.type().endsWith("Device")) return null;
        var d = b.config().get("devname");
        return d == null ? null : d.asText();
    }

    private static void remove(
            String name, Map<String, Block> blocks, Map<String, Kind> kinds, Map<String, Origin> origins) {
        blocks.remove(name);
        kinds.remove(name);
        origins.remove(name);
    }
}
