package org.openbox.protocol.message;


/** Spec 4.2.2: the OBI is alive. */
public record KeepAlive(long xid, long dpid) implements Message {
    @Override
    public String type() {
        return "KeepAlive";
    }
}
