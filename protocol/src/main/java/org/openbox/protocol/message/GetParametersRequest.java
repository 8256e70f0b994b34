package org.openbox.protocol.message;

import java.util.List;

/** Spec 4.2.17: ask for parameters; null or empty means all. */
public record GetParametersRequest(long xid, List<String> parameters) implements Message {
    @Override
    public String type() {
        return "GetParametersRequest";
    }
}
