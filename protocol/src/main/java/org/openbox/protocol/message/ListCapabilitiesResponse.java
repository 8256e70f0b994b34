package org.openbox.protocol.message;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Spec 4.2.14: the capabilities map, as in Hello. */
public record ListCapabilitiesResponse(long xid, ObjectNode capabilities) implements Message {
    @Override
    public String type() {
        return "ListCapabilitiesResponse";
    }
}
