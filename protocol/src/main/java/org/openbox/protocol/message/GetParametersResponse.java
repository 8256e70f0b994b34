package org.openbox.protocol.message;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Spec 4.2.18: the requested parameters. */
public record GetParametersResponse(long xid, ObjectNode parameters) implements Message {
    @Override
    public String type() {
        return "GetParametersResponse";
    }
}
