package org.openbox.protocol.message;

/** Spec 4.2.16: parameters were set. */
public record SetParametersResponse(long xid) implements Message {
    @Override
    public String type() {
        return "SetParametersResponse";
    }
}
