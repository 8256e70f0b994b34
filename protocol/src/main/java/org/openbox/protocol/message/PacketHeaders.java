package org.openbox.protocol.message;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * Header fields of the packet behind an alert (an extension of the Alert entry, each field
 * optional): the Ethernet addresses (sent for a packet without IP) and type, the IPv4 or
 * IPv6 addresses as text and the IP protocol, the TCP / UDP / SCTP ports or the ICMP /
 * ICMPv6 type and code. A null field is absent on the wire.
 */
public record PacketHeaders(
        String ethSrc,
        String ethDst,
        Integer ethType,
        String srcIp,
        String dstIp,
        Integer ipProto,
        Integer srcPort,
        Integer dstPort,
        Integer icmpType,
        Integer icmpCode) {

    /** No field known (an OBI that does not send them). */
    public static final PacketHeaders NONE =
            new PacketHeaders(null, null, null, null, null, null, null, null, null, null);

    @JsonIgnore
    public boolean isEmpty() {
        return equals(NONE);
    }
}
