package org.openbox.protocol.message;

/** Spec 4.2.4: read one handle of one block. */
public record ReadRequest(long xid, String blockId, String readHandle) implements Message {
    @Override
    public String type() {
        return "ReadRequest";
    }
}
