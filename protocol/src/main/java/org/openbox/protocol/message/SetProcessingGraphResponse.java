package org.openbox.protocol.message;

import java.util.List;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;

/** Spec 4.2.5: the graph was set; blocks and connectors only when report_back was requested. */
public record SetProcessingGraphResponse(long xid, List<Block> blocks, List<Connector> connectors) implements Message {
    @Override
    public String type() {
        return "SetProcessingGraphResponse";
    }
}
