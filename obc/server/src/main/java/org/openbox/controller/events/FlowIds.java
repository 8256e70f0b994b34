package org.openbox.controller.events;

import java.nio.charset.StandardCharsets;
import org.openbox.protocol.message.PacketHeaders;

/**
 * The flow id of an alert: a 64-bit FNV-1a hash of the packet's 5-tuple (protocol, both
 * addresses and ports, or ICMP type/code), with the two endpoints in a fixed order so
 * that both directions of a flow get the same id, and the same id after a restart or on
 * another controller. Packets without IP hash their Ethernet addresses and type. Kept to
 * 53 bits, so the id is exact in JSON readers that use doubles; 0 means no headers.
 */
final class FlowIds {

    private static final long OFFSET = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;
    private static final long MASK = (1L << 53) - 1;

    private FlowIds() {}

    static long of(PacketHeaders h) {
        if (h == null || h.isEmpty()) {
            return 0;
        }
        String key;
        if (h.srcIp() != null && h.dstIp() != null) {
            String a = h.srcIp() + "/" + num(h.srcPort());
            String b = h.dstIp() + "/" + num(h.dstPort());
            boolean swap = a.compareTo(b) > 0;
            key = "ip " + num(h.ipProto()) + " " + (swap ? b + " " + a : a + " " + b);
        } else {
            String a = String.valueOf(h.ethSrc());
            String b = String.valueOf(h.ethDst());
            key = "eth " + num(h.ethType()) + " " + (a.compareTo(b) > 0 ? b + " " + a : a + " " + b);
        }
        long x = OFFSET;
        for (byte c : key.getBytes(StandardCharsets.UTF_8)) {
            x ^= c & 0xff;
            x *= PRIME;
        }
        long id = x & MASK;
        return id == 0 ? 1 : id;
    }

    private static String num(Integer v) {
        return v == null ? "-" : v.toString();
    }
}
