package org.openbox.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
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

    ProcessingGraph(List<Block> blocks, List<Connector> connectors) {
        this.graph = new Graph(blocks, connectors);
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
