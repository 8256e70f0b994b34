package org.openbox.protocol.message;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Spec 4.2.2: the OBI is alive. {@code metrics} (extension, optional) carries the data-plane
 * figures the controller subscribed to with the {@code metrics_subscription} parameter
 * (see protocol/README.md); a plain KeepAlive has none.
 */
public record KeepAlive(long xid, long dpid, ObjectNode metrics) implements Message {

    /** A plain KeepAlive, without metrics. */
    public KeepAlive(long xid, long dpid) {
        this(xid, dpid, null);
    }

    @Override
    public String type() {
        return "KeepAlive";
    }
}
