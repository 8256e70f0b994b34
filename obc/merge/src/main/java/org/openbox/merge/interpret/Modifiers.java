package org.openbox.merge.interpret;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.Map;
import org.openbox.merge.MergeException;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;
import org.openbox.protocol.match.Term;

/**
 * The packet changes of the modifier blocks the interpreter supports. Each takes the
 * current frame and returns the new frame and the output port it leaves by.
 * <ul>
 * <li>DecIpTtl (spec 5.12): IPv4 TTL (checksum updated) or IPv6 hop limit minus one on
 *     output 0; TTL <= 1, or a frame that is not IP, leaves unchanged on output 1;
 *     {@code active: false} passes every frame unchanged on output 0.</li>
 * <li>NetworkHeaderFieldsRewriter (spec 5.14): writes the configured fields a frame has
 *     (no checksum update); output 0.</li>
 * <li>VlanEncapsulate / VlanDecapsulate (spec 5.10, 5.11): push / pop an outer tag; output 0.</li>
 * </ul>
 */
final class Modifiers {
    record Result(byte[] packet, int port) {}

    private static final Map<String, MatchField> FIELDS = Map.ofEntries(
            Map.entry("eth_dst", MatchField.ETH_DST), Map.entry("eth_src", MatchField.ETH_SRC),
            Map.entry("eth_type", MatchField.ETH_TYPE), Map.entry("ipv4_proto", MatchField.IP_PROTO),
            Map.entry("ipv4_src", MatchField.IPV4_SRC), Map.entry("ipv4_dst", MatchField.IPV4_DST),
            Map.entry("ipv4_dscp", MatchField.IP_DSCP), Map.entry("ipv4_ecn", MatchField.IP_ECN),
            Map.entry("tcp_src", MatchField.TCP_SRC), Map.entry("tcp_dst", MatchField.TCP_DST),
            Map.entry("udp_src", MatchField.UDP_SRC), Map.entry("udp_dst", MatchField.UDP_DST));

    private Modifiers() {}

    static boolean supports(String type) {
        return switch (type) {
            case "DecIpTtl", "NetworkHeaderFieldsRewriter", "VlanEncapsulate", "VlanDecapsulate" -> true;
            default -> false;
        };
    }

    static Result apply(String block, String type, ObjectNode config, byte[] packet) {
        return switch (type) {
            case "DecIpTtl" -> decTtl(config, packet);
            case "NetworkHeaderFieldsRewriter" -> new Result(rewrite(block, config, packet), 0);
            case "VlanEncapsulate" -> new Result(push(block, config, packet), 0);
            case "VlanDecapsulate" -> new Result(pop(packet), 0);
            default -> throw new MergeException("block '" + block + "': the interpreter does not run " + type);
        };
    }

    private static Result decTtl(ObjectNode config, byte[] packet) {
        if (config != null && !config.path("active").asBoolean(true)) return new Result(packet, 0);
        PacketView v = new PacketView(packet);
        if (v.ipVersion == 0) return new Result(packet, 1);
        int at = v.ipVersion == 4 ? v.l3 + 8 : v.l3 + 7;
        int ttl = v.u8(at);
        if (ttl <= 1) return new Result(packet, 1);
        byte[] out = packet.clone();
        out[at] = (byte) (ttl - 1);
        if (v.ipVersion == 4) {
            int ihl = (v.u8(v.l3) & 0xf) * 4;
            out[v.l3 + 10] = 0;
            out[v.l3 + 11] = 0;
            long sum = 0;
            for (int i = 0; i < ihl; i += 2) sum += ((out[v.l3 + i] & 0xff) << 8) | (out[v.l3 + i + 1] & 0xff);
            while ((sum >> 16) != 0) sum = (sum & 0xffff) + (sum >> 16);
            int ck = (int) (~sum & 0xffff);
            out[v.l3 + 10] = (byte) (ck >> 8);
            out[v.l3 + 11] = (byte) ck;
        }
        return new Result(out, 0);
    }

    private static byte[] rewrite(String block, ObjectNode config, byte[] packet) {
        if (config == null) return packet;
        PacketView v = new PacketView(packet);
        byte[] out = packet.clone();
        for (var it = config.fields(); it.hasNext(); ) {
            var e = it.next();
            String k = e.getKey();
            if (k.equals("ipv4_ttl")) {
                if (v.ipVersion == 4) out[v.l3 + 8] = (byte) value(block, k, e.getValue(), 8);
                continue;
            }
            MatchField f = FIELDS.get(k);
            if (f == null) throw new MergeException("block '" + block + "': unknown field '" + k + "'");
            BigInteger val = exact(block, f, e.getValue());
            switch (f) {
                case ETH_DST -> {
                    if (v.typeOffset >= 0) put(out, 0, 6, val);
                }
                case ETH_SRC -> {
                    if (v.typeOffset >= 0) put(out, 6, 6, val);
                }
                case ETH_TYPE -> {
                    if (v.typeOffset >= 0) put(out, v.typeOffset, 2, val);
                }
                case IP_PROTO -> {
                    if (v.ipVersion == 4) put(out, v.l3 + 9, 1, val);
                }
                case IPV4_SRC -> {
                    if (v.ipVersion == 4) put(out, v.l3 + 12, 4, val);
                }
                case IPV4_DST -> {
                    if (v.ipVersion == 4) put(out, v.l3 + 16, 4, val);
                }
                case IP_DSCP -> {
                    if (v.ipVersion == 4) out[v.l3 + 1] = (byte) ((out[v.l3 + 1] & 0x03) | (val.intValue() << 2));
                }
                case IP_ECN -> {
                    if (v.ipVersion == 4) out[v.l3 + 1] = (byte) ((out[v.l3 + 1] & 0xfc) | val.intValue());
                }
                case TCP_SRC -> {
                    if (v.field(MatchField.TCP_SRC) != null) put(out, v.l4, 2, val);
                }
                case TCP_DST -> {
                    if (v.field(MatchField.TCP_DST) != null) put(out, v.l4 + 2, 2, val);
                }
                case UDP_SRC -> {
                    if (v.field(MatchField.UDP_SRC) != null) put(out, v.l4, 2, val);
                }
                case UDP_DST -> {
                    if (v.field(MatchField.UDP_DST) != null) put(out, v.l4 + 2, 2, val);
                }
                default -> throw new IllegalStateException(f.toString());
            }
        }
        return out;
    }

    private static BigInteger exact(String block, MatchField f, JsonNode value) {
        try {
            var fm = HeaderMatchParser.parseValue(f.name(), value);
            if (fm.terms().size() == 1
                    && fm.terms().get(0) instanceof Term.Masked m
                    && m.mask().equals(f.fullMask())) {
                return m.value();
            }
        } catch (ProtocolException e) {
            throw new MergeException("block '" + block + "': " + e.getMessage());
        }
        throw new MergeException("block '" + block + "': " + f + " needs one exact value, got " + value);
    }

    private static int value(String block, String key, JsonNode v, int bits) {
        long x;
        if (v.isIntegralNumber()) x = v.asLong();
        else if (v.isTextual()) {
            String s = v.asText().trim();
            try {
                x = s.startsWith("0x") ? Long.parseLong(s.substring(2), 16) : Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new MergeException("block '" + block + "': " + key + " is not an integer: " + v);
            }
        } else throw new MergeException("block '" + block + "': " + key + " is not an integer: " + v);
        if (x < 0 || x >= (1L << bits))
            throw new MergeException("block '" + block + "': " + key + " out of range: " + v);
        return (int) x;
    }

    private static void put(byte[] out, int at, int n, BigInteger v) {
        for (int i = n - 1; i >= 0; i--) {
            out[at + i] = v.byteValue();
            v = v.shiftRight(8);
        }
    }

    private static byte[] push(String block, ObjectNode c, byte[] packet) {
        if (packet.length < 14) return packet;
        int vid = value(block, "vlan_vid", c == null ? null : c.path("vlan_vid"), 12);
        int dei = c.has("vlan_dei") ? value(block, "vlan_dei", c.get("vlan_dei"), 1) : 0;
        int pcp = c.has("vlan_pcp") ? value(block, "vlan_pcp", c.get("vlan_pcp"), 3) : 0;
        int et = c.has("ethertype") ? value(block, "ethertype", c.get("ethertype"), 16) : 0x8100;
        int tci = (pcp << 13) | (dei << 12) | vid;
        byte[] out = new byte[packet.length + 4];
        System.arraycopy(packet, 0, out, 0, 12);
        out[12] = (byte) (et >> 8);
        out[13] = (byte) et;
        out[14] = (byte) (tci >> 8);
        out[15] = (byte) tci;
        System.arraycopy(packet, 12, out, 16, packet.length - 12);
        return out;
    }

    private static byte[] pop(byte[] packet) {
        if (packet.length < 18) return packet;
        int t = ((packet[12] & 0xff) << 8) | (packet[13] & 0xff);
        if (!PacketView.isVlanType(t)) return packet;
        byte[] out = new byte[packet.length - 4];
        System.arraycopy(packet, 0, out, 0, 12);
        System.arraycopy(packet, 16, out, 12, packet.length - 16);
        return out;
    }
}
