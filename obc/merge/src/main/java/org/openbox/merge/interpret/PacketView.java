package org.openbox.merge.interpret;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import org.openbox.merge.core.FieldSource;
import org.openbox.protocol.match.MatchField;

/**
 * The parsed headers of one Ethernet frame, as classifiers see them: Ethernet, 802.1Q /
 * 802.1ad tags (VLAN fields from the outer tag, ETH_TYPE after the tags), IPv4, IPv6
 * (no extension headers), ARP, and TCP / UDP / SCTP / ICMP / ICMPv6 on the first fragment.
 * The payload starts after the L4 header, or after the L3 header when the L4 protocol is
 * unknown or the packet is a later fragment; a frame without a known L3 has no payload.
 * A field of a header the packet does not have (or that is truncated) is absent.
 */
public final class PacketView implements FieldSource {
    static final int[] VLAN_TYPES = {0x8100, 0x88a8, 0x9100};

    final byte[] bytes;
    private final Map<MatchField, BigInteger> fields = new EnumMap<>(MatchField.class);
    /** Offset of the type field after VLAN tags; -1 for a runt frame. */
    int typeOffset = -1;

    int l3 = -1;
    int l4 = -1;
    int payload = -1;
    int ipVersion = 0;

    public PacketView(byte[] bytes) {
        this.bytes = bytes;
        parse();
    }

    int u8(int o) {
        return bytes[o] & 0xff;
    }

    int u16(int o) {
        return (u8(o) << 8) | u8(o + 1);
    }

    long u32(int o) {
        return ((long) u16(o) << 16) | u16(o + 2);
    }

    private BigInteger bytesAt(int o, int n) {
        byte[] b = new byte[n];
        System.arraycopy(bytes, o, b, 0, n);
        return new BigInteger(1, b);
    }

    private void put(MatchField f, long v) {
        fields.put(f, BigInteger.valueOf(v));
    }

    static boolean isVlanType(int t) {
        for (int v : VLAN_TYPES) if (v == t) return true;
        return false;
    }

    private void parse() {
        int len = bytes.length;
        if (len < 14) return;
        fields.put(MatchField.ETH_DST, bytesAt(0, 6));
        fields.put(MatchField.ETH_SRC, bytesAt(6, 6));
        int off = 12;
        int type = u16(off);
        boolean first = true;
        while (isVlanType(type) && len >= off + 6) {
            int tci = u16(off + 2);
            if (first) {
                put(MatchField.VLAN_VID, tci & 0xfff);
                put(MatchField.VLAN_PCP, tci >>> 13);
                first = false;
            }
            off += 4;
            type = u16(off);
        }
        typeOffset = off;
        put(MatchField.ETH_TYPE, type);
        int l3off = off + 2;
        int proto;
        if (type == 0x0800 && len >= l3off + 20 && (u8(l3off) >>> 4) == 4 && (u8(l3off) & 0xf) >= 5) {
            l3 = l3off;
            ipVersion = 4;
            int ihl = (u8(l3) & 0xf) * 4;
            int tos = u8(l3 + 1);
            put(MatchField.IP_DSCP, tos >>> 2);
            put(MatchField.IP_ECN, tos & 3);
            proto = u8(l3 + 9);
            put(MatchField.IP_PROTO, proto);
            put(MatchField.IPV4_SRC, u32(l3 + 12));
            put(MatchField.IPV4_DST, u32(l3 + 16));
            int afterL3 = Math.min(len, l3 + ihl);
            boolean later = (u16(l3 + 6) & 0x1fff) != 0;
            if (later || l3 + ihl > len) {
                payload = afterL3;
                return;
            }
            transport(proto, l3 + ihl, false);
        } else if (type == 0x86dd && len >= l3off + 40 && (u8(l3off) >>> 4) == 6) {
            l3 = l3off;
            ipVersion = 6;
            int tc = ((u8(l3) & 0xf) << 4) | (u8(l3 + 1) >>> 4);
            put(MatchField.IP_DSCP, tc >>> 2);
            put(MatchField.IP_ECN, tc & 3);
            put(MatchField.IPV6_FLABEL, u32(l3) & 0xfffff);
            proto = u8(l3 + 6);
            put(MatchField.IP_PROTO, proto);
            fields.put(MatchField.IPV6_SRC, bytesAt(l3 + 8, 16));
            fields.put(MatchField.IPV6_DST, bytesAt(l3 + 24, 16));
            transport(proto, l3 + 40, true);
        } else if (type == 0x0806 && len >= l3off + 28) {
            l3 = l3off;
            put(MatchField.ARP_OP, u16(l3 + 6));
            fields.put(MatchField.ARP_SHA, bytesAt(l3 + 8, 6));
            put(MatchField.ARP_SPA, u32(l3 + 14));
            fields.put(MatchField.ARP_THA, bytesAt(l3 + 18, 6));
            put(MatchField.ARP_TPA, u32(l3 + 24));
            payload = l3 + 28;
        }
    }

    private void transport(int proto, int o, boolean v6) {
        int len = bytes.length;
        switch (proto) {
            case 6 -> {
                if (len < o + 20) {
                    payload = len;
                    return;
                }
                l4 = o;
                put(MatchField.TCP_SRC, u16(o));
                put(MatchField.TCP_DST, u16(o + 2));
                payload = Math.min(len, o + Math.max(20, (u8(o + 12) >>> 4) * 4));
            }
            case 17 -> {
                if (len < o + 8) {
                    payload = len;
                    return;
                }
                l4 = o;
                put(MatchField.UDP_SRC, u16(o));
                put(MatchField.UDP_DST, u16(o + 2));
                payload = o + 8;
            }
            case 132 -> {
                if (len < o + 12) {
                    payload = len;
                    return;
                }
                l4 = o;
                put(MatchField.SCTP_SRC, u16(o));
                put(MatchField.SCTP_DST, u16(o + 2));
                payload = o + 12;
            }
            case 1, 58 -> {
                if ((proto == 58) != v6) {
                    payload = o;
                    return;
                }
                if (len < o + 8) {
                    payload = len;
                    return;
                }
                l4 = o;
                put(v6 ? MatchField.ICMPV6_TYPE : MatchField.ICMPV4_TYPE, u8(o));
                put(v6 ? MatchField.ICMPV6_CODE : MatchField.ICMPV4_CODE, u8(o + 1));
                payload = o + 8;
            }
            default -> payload = o;
        }
    }

    @Override
    public BigInteger field(MatchField f) {
        return fields.get(f);
    }

    @Override
    public String payloadText() {
        if (payload < 0 || payload >= bytes.length) return "";
        return new String(bytes, payload, bytes.length - payload, StandardCharsets.ISO_8859_1);
    }

    @Override
    public String packetText() {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }
}
