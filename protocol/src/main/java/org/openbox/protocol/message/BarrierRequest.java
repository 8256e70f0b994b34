package org.openbox.protocol.message;

/** Spec 4.2.7: finish all earlier requests before the next one. */
public record BarrierRequest(long xid) implements Message {
    @Override
    public String type() {
        return "BarrierRequest";
    }
}
