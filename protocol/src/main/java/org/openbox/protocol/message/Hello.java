package org.openbox.protocol.message;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Spec 4.2.1: an OBI announces itself; source_addr/source_port tell where the controller reaches it. */
public record Hello(long xid, long dpid, String version, ObjectNode capabilities, String sourceAddr, Integer sourcePort)
        implements Message {
    @Override
    public String type() {
        return "Hello";
    }
}
