package org.openbox.protocol.message;

/** Spec 4.2.3: reset global statistics. */
public record GlobalStatsReset(long xid) implements Message {
    @Override
    public String type() {
        return "GlobalStatsReset";
    }
}
