package org.openbox.protocol.message;

import com.fasterxml.jackson.databind.JsonNode;

/** Spec 4.2.4: write a handle; value is any JSON value, NullNode for handles of type null. */
public record WriteRequest(long xid, String blockId, String writeHandle, JsonNode value) implements Message {
    @Override
    public String type() {
        return "WriteRequest";
    }
}
