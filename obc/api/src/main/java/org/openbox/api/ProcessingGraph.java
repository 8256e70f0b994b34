package org.openbox.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * An immutable, validated processing graph: blocks and connectors. Built by
 * {@link GraphBuilder#build()}, which guarantees that every block passes its catalogue check,
 * connectors stay within port ranges, every non-source block is fed, there is no cycle and
 * at least one source (input terminal) exists.
 */
public final class ProcessingGraph {

    private final Graph graph;
    private final Catalogue checkedWith;

    ProcessingGraph(List<Block> blocks, List<Connector> connectors, Catalogue checkedWith) {
        this.graph = new Graph(blocks, connectors);
        this.checkedWith = checkedWith;
    }

    /**
     * True when {@link GraphBuilder#build()} checked this graph against a catalogue with the
     * same block types as {@code catalogue}: checking it again against {@code catalogue}
     * (with {@link GraphChecker}'s default limits) finds nothing new.
     */
    public boolean checkedAgainst(Catalogue catalogue) {
        return catalogue != null && (catalogue == checkedWith || checkedWith.sameTypes(catalogue));
    }

    public List<Block> blocks() {
        return graph.blocks();
    }

    public List<Connector> connectors() {
        return graph.connectors();
    }

    public Optional<Block> block(String name) {
        return graph.blocks().stream().filter(b -> b.name().equals(name)).findFirst();
    }

    /** The protocol form (what a SetProcessingGraphRequest carries). */
    public Graph toGraph() {
        return graph;
    }

    /** The graph-file form: {"blocks": [...], "connectors": [...]}. */
    public ObjectNode toJson() {
        return graph.toJson();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProcessingGraph p && p.graph.equals(graph);
    }

    @Override
    public int hashCode() {
        return graph.hashCode();
    }

    @Override
    public String toString() {
        return toJson().toString();
    }
}
