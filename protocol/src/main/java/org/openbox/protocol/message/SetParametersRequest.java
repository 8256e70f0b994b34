package org.openbox.protocol.message;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Spec 4.2.15: set OBI parameters (keepalive_interval, log server, ...). */
public record SetParametersRequest(long xid, ObjectNode parameters) implements Message {
    @Override
    public String type() {
        return "SetParametersRequest";
    }
}
