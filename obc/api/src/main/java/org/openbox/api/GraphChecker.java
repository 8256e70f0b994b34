package org.openbox.api;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * The structural check of a processing graph, the one an OBI makes before it runs one
 * (the shared vectors in {@code protocol/vectors/graphs} hold both to it). In order:
 * <ol>
 * <li>size: at most {@link Limits#maxBlocks()} blocks (BAD_GRAPH);</li>
 * <li>blocks: a non-empty name and type (BAD_BLOCK), names unique (BAD_BLOCK), the type in
 *     the catalogue (UNSUPPORTED_BLOCK), the configuration as the catalogue describes it
 *     (BAD_BLOCK, BAD_HEADER_MATCH, BAD_PAYLOAD_MATCH); at least one block (BAD_GRAPH);</li>
 * <li>connectors: between existing blocks (BAD_CONNECTOR), on ports the blocks have
 *     (BAD_CONNECTOR), at most one connector per output port (BAD_CONNECTOR);</li>
 * <li>shape: every block with inputs is fed by a connector, a block without inputs (an
 *     input terminal such as FromDevice) exists, no cycle, at most
 *     {@link Limits#maxDepth()} blocks on the longest path (BAD_GRAPH).</li>
 * </ol>
 * The OBI makes every check but one: it runs a graph with a block nothing feeds (such a
 * block never sees a packet), while an application graph with one is refused here; the
 * shared vectors hold no such case.
 * The first failure is thrown as {@link InvalidGraphException} with the subtype and a message
 * naming the block or connector. No recursion: graphs of any size are checked iteratively.
 */
public final class GraphChecker {

    /**
     * Caps on a graph, as the OBI's {@code --max-blocks} and {@code --max-depth} (same defaults).
     *
     * @param maxBlocks most blocks in a graph
     * @param maxDepth most blocks on the longest path
     */
    public record Limits(int maxBlocks, int maxDepth) {
        /** The OBI's defaults. */
        public static final Limits DEFAULT = new Limits(100_000, 50_000);

        public Limits {
            if (maxBlocks < 1 || maxDepth < 1) {
                throw new IllegalArgumentException("graph limits must be positive: " + maxBlocks + ", " + maxDepth);
            }
        }
    }

    private final Catalogue catalogue;
    private final Limits limits;

    public GraphChecker(Catalogue catalogue) {
        this(catalogue, Limits.DEFAULT);
    }

    public GraphChecker(Catalogue catalogue, Limits limits) {
        this.catalogue = Objects.requireNonNull(catalogue, "catalogue");
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /** The catalogue block types and configurations are checked against. */
    public Catalogue catalogue() {
        return catalogue;
    }

    /**
     * Checks {@code graph}.
     *
     * @throws InvalidGraphException the first problem found, with its protocol subtype
     */
    public void check(Graph graph) {
        List<Block> blocks = graph.blocks() == null ? List.of() : graph.blocks();
        List<Connector> connectors = graph.connectors() == null ? List.of() : graph.connectors();
        if (blocks.size() > limits.maxBlocks()) {
            throw new InvalidGraphException(
                    ErrorSubtype.BAD_GRAPH,
                    "the graph has " + blocks.size() + " blocks, over the cap of " + limits.maxBlocks());
        }
        Map<String, Block> byName = new LinkedHashMap<>();
        Map<String, BlockDescriptor> descriptors = new HashMap<>();
        for (int i = 0; i < blocks.size(); i++) {
            Block b = blocks.get(i);
            if (b == null || b.name() == null || b.name().isEmpty()) {
                throw new InvalidGraphException(ErrorSubtype.BAD_BLOCK, "block " + i + ": missing or empty name");
            }
            if (b.type() == null || b.type().isEmpty()) {
                throw new InvalidGraphException(
                        ErrorSubtype.BAD_BLOCK, "block '" + b.name() + "': missing or empty type");
            }
            if (byName.putIfAbsent(b.name(), b) != null) {
                throw new InvalidGraphException(ErrorSubtype.BAD_BLOCK, "two blocks are named '" + b.name() + "'");
            }
        }
        for (Block b : blocks) {
            try {
                catalogue.validate(b);
            } catch (InvalidGraphException e) {
                throw e;
            } catch (ProtocolException e) {
                throw new InvalidGraphException(e.subtype(), e.getMessage());
            }
            descriptors.put(b.name(), catalogue.find(b.type()).orElseThrow());
        }
        if (blocks.isEmpty()) {
            throw new InvalidGraphException(ErrorSubtype.BAD_GRAPH, "the graph has no blocks");
        }
        checkConnectors(connectors, byName, descriptors);
        checkShape(blocks, connectors, descriptors);
    }

    private static void checkConnectors(
            List<Connector> connectors, Map<String, Block> byName, Map<String, BlockDescriptor> descriptors) {
        record Output(String block, int port) {}
        Map<Output, Connector> usedOutputs = new HashMap<>();
        for (Connector c : connectors) {
            Block src = c.src() == null ? null : byName.get(c.src());
            Block dst = c.dst() == null ? null : byName.get(c.dst());
            if (src == null || dst == null) {
                throw new InvalidGraphException(
                        ErrorSubtype.BAD_CONNECTOR,
                        describe(c) + ": no block named '" + (src == null ? c.src() : c.dst()) + "'");
            }
            int outs = descriptors.get(c.src()).outputCount(src.config());
            if (c.srcPort() < 0 || c.srcPort() >= outs) {
                throw new InvalidGraphException(
                        ErrorSubtype.BAD_CONNECTOR,
                        describe(c) + ": " + c.src() + " (" + src.type() + ") has " + outs + " output"
                                + (outs == 1 ? "" : "s"));
            }
            int ins = descriptors.get(c.dst()).inputCount(dst.config());
            if (c.dstPort() < 0 || c.dstPort() >= ins) {
                throw new InvalidGraphException(
                        ErrorSubtype.BAD_CONNECTOR,
                        describe(c) + ": " + c.dst() + " (" + dst.type() + ") has " + ins + " input"
                                + (ins == 1 ? "" : "s"));
            }
            Connector earlier = usedOutputs.putIfAbsent(new Output(c.src(), c.srcPort()), c);
            if (earlier != null) {
                throw new InvalidGraphException(
                        ErrorSubtype.BAD_CONNECTOR,
                        describe(c) + ": output " + c.srcPort() + " of " + c.src() + " is already connected to "
                                + earlier.dst());
            }
        }
    }

    /** How an error names a connector (built only for an error: graphs have thousands). */
    private static String describe(Connector c) {
        return "connector " + c.src() + "[" + c.srcPort() + "] -> " + c.dst() + "[" + c.dstPort() + "]";
    }

    /** Every block with inputs is fed, an input terminal exists, no cycle, depth within the cap (Kahn's algorithm). */
    private void checkShape(List<Block> blocks, List<Connector> connectors, Map<String, BlockDescriptor> descriptors) {
        Map<String, Integer> indegree = new LinkedHashMap<>();
        Map<String, List<String>> next = new HashMap<>();
        for (Block b : blocks) {
            indegree.put(b.name(), 0);
            next.put(b.name(), new ArrayList<>());
        }
        for (Connector c : connectors) {
            indegree.merge(c.dst(), 1, Integer::sum);
            next.get(c.src()).add(c.dst());
        }
        boolean source = false;
        for (Block b : blocks) {
            boolean isSource = descriptors.get(b.name()).inputCount(b.config()) == 0;
            source |= isSource;
            if (!isSource && indegree.get(b.name()) == 0) {
                throw new InvalidGraphException(
                        ErrorSubtype.BAD_GRAPH,
                        "block '" + b.name() + "' (" + b.type() + ") is not connected to anything upstream");
            }
        }
        if (!source) {
            throw new InvalidGraphException(
                    ErrorSubtype.BAD_GRAPH,
                    "the graph has no input terminal (a block without inputs, such as FromDevice or FromDump)");
        }
        Map<String, Integer> depth = new HashMap<>();
        Deque<String> ready = new ArrayDeque<>();
        indegree.forEach((n, d) -> {
            if (d == 0) {
                ready.add(n);
                depth.put(n, 1);
            }
        });
        int seen = 0;
        int deepest = 0;
        while (!ready.isEmpty()) {
            String n = ready.poll();
            seen++;
            int here = depth.get(n);
            deepest = Math.max(deepest, here);
            for (String m : next.get(n)) {
                depth.merge(m, here + 1, Math::max);
                if (indegree.merge(m, -1, Integer::sum) == 0) {
                    ready.add(m);
                }
            }
        }
        if (seen < blocks.size()) {
            String onCycle = indegree.entrySet().stream()
                    .filter(e -> e.getValue() > 0)
                    .map(Map.Entry::getKey)
                    .findFirst()
                    .orElse("?");
            throw new InvalidGraphException(
                    ErrorSubtype.BAD_GRAPH, "the graph has a cycle through block '" + onCycle + "'");
        }
        if (deepest > limits.maxDepth()) {
            throw new InvalidGraphException(
                    ErrorSubtype.BAD_GRAPH,
                    "the graph has a longest path of " + deepest + " blocks, over the cap of " + limits.maxDepth());
        }
    }
}
