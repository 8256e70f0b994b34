package org.openbox.protocol.message;

import com.fasterxml.jackson.databind.JsonNode;

/** Spec 4.2.4: the value read; result is any JSON value (never Java null). */
public record ReadResponse(long xid, String blockId, String readHandle, JsonNode result) implements Message {
    @Override
    public String type() {
        return "ReadResponse";
    }
}
