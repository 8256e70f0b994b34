package org.openbox.protocol.message;

import java.util.List;

/** Spec 4.2.9: alerts raised by blocks of an OBI. */
public record Alert(long xid, long originDpid, List<AlertEntry> messages) implements Message {
    @Override
    public String type() {
        return "Alert";
    }
}
