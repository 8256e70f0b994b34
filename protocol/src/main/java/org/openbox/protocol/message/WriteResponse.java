package org.openbox.protocol.message;

/** Spec 4.2.4: a write was done (the spec's read_handle is accepted on input as write_handle). */
public record WriteResponse(long xid, String blockId, String writeHandle) implements Message {
    @Override
    public String type() {
        return "WriteResponse";
    }
}
