package org.openbox.protocol.message;

/** A module was removed. */
public record RemoveCustomModuleResponse(long xid) implements Message {
    @Override
    public String type() {
        return "RemoveCustomModuleResponse";
    }
}
