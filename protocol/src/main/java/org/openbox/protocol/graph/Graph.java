package org.openbox.protocol.graph;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;

/**
 * A processing graph: the blocks and connectors of a SetProcessingGraphRequest, or the body
 * of a graph file ({"blocks": [...], "connectors": [...]}).
 */
public record Graph(List<Block> blocks, List<Connector> connectors) {
    public Graph {
        blocks = List.copyOf(blocks);
        connectors = List.copyOf(connectors);
    }

    /**
     * Reads a graph file. A graph that is not an object or lacks the two arrays is BAD_GRAPH;
     * then the shape checks of protocol/README.md run in order (BAD_BLOCK, BAD_CONNECTOR,
     * BAD_HEADER_MATCH, BAD_PAYLOAD_MATCH).
     */
    public static Graph fromJson(JsonNode graph) {
        if (graph == null || !graph.isObject()) {
            throw new ProtocolException(ErrorSubtype.BAD_GRAPH, "a graph must be a JSON object");
        }
        JsonNode blocks = graph.get("blocks");
        JsonNode connectors = graph.get("connectors");
        if (blocks == null || !blocks.isArray()) {
            throw new ProtocolException(ErrorSubtype.BAD_GRAPH, "graph 'blocks' must be an array");
        }
        if (connectors == null || !connectors.isArray()) {
            throw new ProtocolException(ErrorSubtype.BAD_GRAPH, "graph 'connectors' must be an array");
        }
        GraphShape shape = GraphShape.check(blocks, connectors);
        return new Graph(shape.blocks(), shape.connectors());
    }

    /** {"blocks": [...], "connectors": [...]}; a block without config is written without it. */
    public ObjectNode toJson() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode out = f.objectNode();
        out.set("blocks", blocksToJson(blocks));
        out.set("connectors", connectorsToJson(connectors));
        return out;
    }

    static ArrayNode blocksToJson(List<Block> blocks) {
        ArrayNode arr = JsonNodeFactory.instance.arrayNode();
        for (Block b : blocks) {
            ObjectNode o = arr.addObject();
            o.put("type", b.type());
            o.put("name", b.name());
            if (b.config() != null) {
                o.set("config", b.config().deepCopy());
            }
        }
        return arr;
    }

    static ArrayNode connectorsToJson(List<Connector> connectors) {
        ArrayNode arr = JsonNodeFactory.instance.arrayNode();
        for (Connector c : connectors) {
            ObjectNode o = arr.addObject();
            o.put("src", c.src());
            o.put("src_port", c.srcPort());
            o.put("dst", c.dst());
            o.put("dst_port", c.dstPort());
        }
        return arr;
    }
}
