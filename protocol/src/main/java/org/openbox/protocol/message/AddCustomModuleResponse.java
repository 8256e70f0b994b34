package org.openbox.protocol.message;

/** A module was installed. */
public record AddCustomModuleResponse(long xid) implements Message {
    @Override
    public String type() {
        return "AddCustomModuleResponse";
    }
}
