package org.openbox.protocol.message;

import java.util.List;

/** Spec 4.2.10: log messages from blocks of an OBI. */
public record Log(long xid, long originDpid, List<LogEntry> messages) implements Message {
    @Override
    public String type() {
        return "Log";
    }
}
