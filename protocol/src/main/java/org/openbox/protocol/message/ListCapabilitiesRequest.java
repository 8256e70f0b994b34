package org.openbox.protocol.message;

/** Spec 4.2.13: the controller asks for the OBI's capabilities. */
public record ListCapabilitiesRequest(long xid) implements Message {
    @Override
    public String type() {
        return "ListCapabilitiesRequest";
    }
}
