package org.openbox.protocol.message;

import java.util.List;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;

/** Spec 4.2.5: the whole processing graph of an OBI; required_modules and report_back are optional. */
public record SetProcessingGraphRequest(
        long xid, List<String> requiredModules, List<Block> blocks, List<Connector> connectors, Boolean reportBack)
        implements Message {
    @Override
    public String type() {
        return "SetProcessingGraphRequest";
    }
}
