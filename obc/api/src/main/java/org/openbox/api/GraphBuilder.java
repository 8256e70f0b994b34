package org.openbox.api;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.openbox.api.blocks.ProcessingBlock;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.ErrorSubtype;
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

    private final GraphChecker checker;
    private final Map<String, Block> blocks = new LinkedHashMap<>();
    private final Map<String, ProcessingBlock> typed = new HashMap<>();
    private final List<Connector> connectors = new ArrayList<>();

    /** A builder checking against the packaged catalogue. */
    public GraphBuilder() {
        this(DefaultCatalogue.INSTANCE);
    }

    /** A builder checking against {@code catalogue} (e.g. one extended by custom modules). */
    public GraphBuilder(Catalogue catalogue) {
        this.checker = new GraphChecker(Objects.requireNonNull(catalogue, "catalogue"));
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
            blocks.put(b.name(), null); // snapshot taken by build()
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
     * Validates and returns the graph: each typed block's own check, then the
     * {@link GraphChecker} of the builder's catalogue.
     *
     * @throws InvalidGraphException for an invalid block (BAD_BLOCK, UNSUPPORTED_BLOCK,
     *         BAD_HEADER_MATCH, BAD_PAYLOAD_MATCH), connector (BAD_CONNECTOR) or graph shape (BAD_GRAPH)
     */
    public ProcessingGraph build() {
        List<Block> list = new ArrayList<>();
        for (Map.Entry<String, Block> e : blocks.entrySet()) {
            ProcessingBlock t = typed.get(e.getKey());
            if (t != null) {
                t.check();
            }
            list.add(t != null ? t.toBlock() : e.getValue());
        }
        checker.check(new Graph(list, connectors));
        return new ProcessingGraph(list, connectors, checker.catalogue());
    }

    /** The packaged catalogue, loaded once (immutable). */
    private static final class DefaultCatalogue {
        static final Catalogue INSTANCE = Catalogue.load();
    }
}
