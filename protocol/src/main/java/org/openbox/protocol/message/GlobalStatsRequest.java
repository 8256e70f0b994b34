package org.openbox.protocol.message;

/** Spec 4.2.3: ask for global statistics. */
public record GlobalStatsRequest(long xid) implements Message {
    @Override
    public String type() {
        return "GlobalStatsRequest";
    }
}
