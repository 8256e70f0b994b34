package org.openbox.protocol.message;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Spec 4.2.3: global statistics (current_load, uptime, memory_rss, ...). */
public record GlobalStatsResponse(long xid, ObjectNode stats) implements Message {
    @Override
    public String type() {
        return "GlobalStatsResponse";
    }
}
