package org.openbox.controller.events;

import java.time.Instant;
import org.openbox.api.AlertRule;
import org.openbox.protocol.message.PacketHeaders;

/**
 * One alert as the operator sees it.
 *
 * @param time        when the OBI received the packet (the packet's timestamp; for an OBI
 *                    that does not send it, when the OBI raised the alert)
 * @param app         owning application, null when the merged block has no known owner
 * @param dpid        the OBI
 * @param block       the application's own block (null without an owner)
 * @param mergedBlock the block of the merged graph that raised it
 * @param message     the alert's text
 * @param severity    1 (lowest) .. 5
 * @param rule        the application's rule behind the block (firewall rule, Snort sid/rev), or null
 * @param headers     the packet's header fields the OBI sent (all null for an older OBI)
 * @param flowId      stable hash of the packet's 5-tuple, the same for both directions (0: no headers)
 * @param packet      the attached packet excerpt in base64, or null
 * @param received    when the controller received the alert (null in a history saved
 *                    before it was recorded); tells apart alerts of a replayed trace, whose
 *                    packet times repeat
 */
public record AlertRecord(
        Instant time,
        String app,
        long dpid,
        String block,
        String mergedBlock,
        String message,
        int severity,
        AlertRule rule,
        PacketHeaders headers,
        long flowId,
        String packet,
        Instant received) {

    public AlertRecord {
        headers = headers == null ? PacketHeaders.NONE : headers;
    }
}
