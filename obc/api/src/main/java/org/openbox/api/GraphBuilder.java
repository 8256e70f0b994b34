package org.openbox.api;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.openbox.api.blocks.ProcessingBlock;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * Builds a {@link ProcessingGraph} from typed blocks:
 * <pre>
 * FromDevice in = new FromDevice("in", "eth0");
 * HeaderClassifier fw = new HeaderClassifier("fw").rule(Match.of().tcpDst(22)).rule(Match.of());
 * ProcessingGraph g = new GraphBuilder()
 *         .connect(in, fw)
 *         .connect(fw, 0, new Discard("drop"))
 *         .connect(fw, 1, new ToDevice("out", "eth1"))
 *         .build();
 * </pre>
 * Connecting a block adds it. {@link #build()} validates the whole graph and throws
 * {@link InvalidGraphException} naming the problem. An output port feeds at most one
 * connector; an output left unconnected drops its packets.
 */
public final class GraphBuilder {

    private final Catalogue catalogue;
    private final Map<String, Block> blocks = new LinkedHashMap<>();
    private final Map<String, ProcessingBlock> typed = new HashMap<>();
    private final List<Connector> connectors = new ArrayList<>();

    /** A builder checking against the packaged catalogue. */
    public GraphBuilder() {
        this(DefaultCatalogue.INSTANCE);
    }

    /** A builder checking against {@code catalogue} (e.g. one extended by custom modules). */
    public GraphBuilder(Catalogue catalogue) {
        this.catalogue = Objects.requireNonNull(catalogue, "catalogue");
    }

    /** Adds blocks (a block already added is not added again). */
    public GraphBuilder add(ProcessingBlock... bs) {
        for (ProcessingBlock b : bs) {
            ProcessingBlock known = typed.get(b.name());
            if (known == b) {
                continue;
            }
            if (known != null || blocks.containsKey(b.name())) {
                throw new InvalidGraphException(ErrorSubtype.BAD_BLOCK, "two blocks are named '" + b.name() + "'");
            }
            typed.put(b.name(), b);
            blocks.put(b.name(), null);   // snapshot taken by build()
        }
        return this;
    }

    /** Adds a block in protocol form (e.g. read from a graph file). */
    public GraphBuilder add(Block b) {
        if (blocks.containsKey(b.name())) {
            throw new InvalidGraphException(ErrorSubtype.BAD_BLOCK, "two blocks are named '" + b.name() + "'");
        }
        blocks.put(b.name(), b);
        return this;
    }

    /** Adds every block and connector of a protocol graph. */
    public GraphBuilder add(Graph g) {
        g.blocks().forEach(this::add);
        g.connectors().forEach(c -> connect(c.src(), c.srcPort(), c.dst(), c.dstPort()));
        return this;
    }

    /** Output 0 of {@code src} to input 0 of {@code dst}. */
    public GraphBuilder connect(ProcessingBlock src, ProcessingBlock dst) {
        return connect(src, 0, dst, 0);
    }

    /** Output {@code srcPort} of {@code src} to input 0 of {@code dst}. */
    public GraphBuilder connect(ProcessingBlock src, int srcPort, ProcessingBlock dst) {
        return connect(src, srcPort, dst, 0);
    }

    public GraphBuilder connect(ProcessingBlock src, int srcPort, ProcessingBlock dst, int dstPort) {
        add(src, dst);
        return connect(src.name(), srcPort, dst.name(), dstPort);
    }

    /** Connects blocks by name; the blocks may be added before or after. */
    public GraphBuilder connect(String src, int srcPort, String dst, int dstPort) {
        connectors.add(new Connector(src, srcPort, dst, dstPort));
        return this;
    }

    /** Output 0 of each block to input 0 of the next. */
    public GraphBuilder chain(ProcessingBlock... bs) {
        for (int i = 0; i + 1 < bs.length; i++) {
            connect(bs[i], bs[i + 1]);
        }
        if (bs.length == 1) {
            add(bs[0]);
        }
        return this;
    }

    /**
     * Validates and returns the graph.
     *
     * @throws InvalidGraphException for an invalid block (BAD_BLOCK, UNSUPPORTED_BLOCK,
     *         BAD_HEADER_MATCH, BAD_PAYLOAD_MATCH), connector (BAD_CONNECTOR) or graph shape (BAD_GRAPH)
     */
    public ProcessingGraph build() {
        List<Block> list = new ArrayList<>();
        Map<String, BlockDescriptor> descriptors = new HashMap<>();
        for (Map.Entry<String, Block> e : blocks.entrySet()) {
            ProcessingBlock t = typed.get(e.getKey());
            Block b = t != null ? t.toBlock() : e.getValue();
            try {
                catalogue.validate(b);
            } catch (InvalidGraphException ex) {
                throw ex;
            } catch (ProtocolException ex) {
                throw new InvalidGraphException(ex.subtype(), ex.getMessage());
            }
            if (t != null) {
                t.check();
            }
            descriptors.put(b.name(), catalogue.find(b.type()).orElseThrow());
            list.add(b);
        }
        if (list.isEmpty()) {
            throw new InvalidGraphException(ErrorSubtype.BAD_GRAPH, "the graph has no blocks");
        }
        Map<String, Block> byName = new HashMap<>();
        list.forEach(b -> byName.put(b.name(), b));
        checkConnectors(byName, descriptors);
        checkShape(list, descriptors);
        return new ProcessingGraph(list, connectors);
    }

    private void checkConnectors(Map<String, Block> byName, Map<String, BlockDescriptor> descriptors) {
        Map<String, Connector> usedOutputs = new HashMap<>();
        for (Connector c : connectors) {
            String what = "connector " + c.src() + "[" + c.srcPort() + "] -> " + c.dst() + "[" + c.dstPort() + "]";
            Block src = byName.get(c.src());
            Block dst = byName.get(c.dst());
            if (src == null || dst == null) {
                throw new InvalidGraphException(ErrorSubtype.BAD_CONNECTOR,
                        what + ": no block named '" + (src == null ? c.src() : c.dst()) + "'");
            }
            int outs = descriptors.get(c.src()).outputCount(src.config());
            if (c.srcPort() < 0 || c.srcPort() >= outs) {
                throw new InvalidGraphException(ErrorSubtype.BAD_CONNECTOR, what + ": " + c.src() + " ("
                        + src.type() + ") has " + outs + " output" + (outs == 1 ? "" : "s"));
            }
            int ins = descriptors.get(c.dst()).inputCount(dst.config());
            if (c.dstPort() < 0 || c.dstPort() >= ins) {
                throw new InvalidGraphException(ErrorSubtype.BAD_CONNECTOR, what + ": " + c.dst() + " ("
                        + dst.type() + ") has " + ins + " input" + (ins == 1 ? "" : "s"));
            }
            Connector earlier = usedOutputs.putIfAbsent(c.src() + "\0" + c.srcPort(), c);
            if (earlier != null) {
                throw new InvalidGraphException(ErrorSubtype.BAD_CONNECTOR, what + ": output " + c.srcPort()
                        + " of " + c.src() + " is already connected to " + earlier.dst());
            }
        }
    }

    /** Every non-source block is fed, a source exists, and there is no cycle (Kahn's algorithm). */
    private void checkShape(List<Block> list, Map<String, BlockDescriptor> descriptors) {
        Map<String, Integer> indegree = new LinkedHashMap<>();
        Map<String, List<String>> next = new HashMap<>();
        list.forEach(b -> {
            indegree.put(b.name(), 0);
            next.put(b.name(), new ArrayList<>());
        });
        for (Connector c : connectors) {
            indegree.merge(c.dst(), 1, Integer::sum);
            next.get(c.src()).add(c.dst());
        }
        boolean source = false;
        for (Block b : list) {
            boolean isSource = descriptors.get(b.name()).inputCount(b.config()) == 0;
            source |= isSource;
            if (!isSource && indegree.get(b.name()) == 0) {
                throw new InvalidGraphException(ErrorSubtype.BAD_GRAPH,
                        "block '" + b.name() + "' (" + b.type() + ") is not connected to anything upstream");
            }
        }
        if (!source) {
            throw new InvalidGraphException(ErrorSubtype.BAD_GRAPH,
                    "the graph has no input terminal (a block without inputs, such as FromDevice or FromDump)");
        }
        Deque<String> ready = new ArrayDeque<>();
        indegree.forEach((n, d) -> {
            if (d == 0) {
                ready.add(n);
            }
        });
        int seen = 0;
        while (!ready.isEmpty()) {
            String n = ready.poll();
            seen++;
            for (String m : next.get(n)) {
                if (indegree.merge(m, -1, Integer::sum) == 0) {
                    ready.add(m);
                }
            }
        }
        if (seen < list.size()) {
            String onCycle = indegree.entrySet().stream().filter(e -> e.getValue() > 0).map(Map.Entry::getKey)
                    .findFirst().orElse("?");
            throw new InvalidGraphException(ErrorSubtype.BAD_GRAPH, "the graph has a cycle through block '" + onCycle + "'");
        }
    }

    /** The packaged catalogue, loaded once (immutable). */
    private static final class DefaultCatalogue {
        static final Catalogue INSTANCE = Catalogue.load();
    }
}
