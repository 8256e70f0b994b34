package org.openbox.protocol.message;

/** Spec 4.2.12: remove a module added before. */
public record RemoveCustomModuleRequest(long xid, String moduleName) implements Message {
    @Override
    public String type() {
        return "RemoveCustomModuleRequest";
    }
}
