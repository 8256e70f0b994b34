package org.openbox.protocol.message;

import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * One alert of an {@link Alert}; packet (base64 excerpt), origin_block and app_id are
 * optional. Extension: packet_timestamp (when the OBI received the packet, seconds since the
 * epoch; null when not sent) and the packet's header fields (flat in the entry on the wire).
 */
public record AlertEntry(
        long id,
        double timestamp,
        String message,
        int severity,
        String packet,
        String originBlock,
        String appId,
        Double packetTimestamp,
        @JsonUnwrapped PacketHeaders headers) {

    public AlertEntry {
        headers = headers == null ? PacketHeaders.NONE : headers;
    }

    /** An entry without the extension fields (as the spec defines it). */
    public AlertEntry(
            long id, double timestamp, String message, int severity, String packet, String originBlock, String appId) {
        this(id, timestamp, message, severity, packet, originBlock, appId, null, PacketHeaders.NONE);
    }
}
