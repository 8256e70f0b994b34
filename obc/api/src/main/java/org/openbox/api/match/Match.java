package org.openbox.api.match;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.openbox.protocol.match.HeaderMatch;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;

/**
 * A typed header match (one classifier rule) built field by field:
 * <pre>Match.of().ethType(0x0800).ipv4Src("10.0.0.0/8").tcpDst(80)</pre>
 * A field whose prerequisite field (protocol/README.md) is not set yet gets it filled in with
 * the usual value: {@code tcpDst(80)} alone implies {@code ipProto(6)} and {@code ethType(0x0800)};
 * IPv6 and ICMPv6 fields imply {@code ethType(0x86dd)}. Values use the spec 5.7 grammar, so
 * {@code field(MatchField.TCP_DST, "[80,8080,[16384:]]")} is allowed. An empty match matches
 * every packet. {@link #parse()} checks the whole match; classifiers call it when a rule is added.
 */
public final class Match {

    private final Map<MatchField, Object> fields = new LinkedHashMap<>();

    private Match() {}

    public static Match of() {
        return new Match();
    }

    /** Sets {@code field} to a value in the spec 5.7 grammar (masked, prefix, range or list). */
    public Match field(MatchField field, String value) {
        return put(field, value);
    }

    /** Sets an integer field to an exact value. */
    public Match field(MatchField field, long value) {
        return put(field, value);
    }

    /** An integer field in [min, max]. */
    public Match range(MatchField field, long min, long max) {
        return put(field, "[" + min + ":" + max + "]");
    }

    /** An integer field equal to any of {@code values}. */
    public Match anyOf(MatchField field, long... values) {
        StringJoiner j = new StringJoiner(",", "[", "]");
        for (long v : values) {
            j.add(Long.toString(v));
        }
        return put(field, j.toString());
    }

    public Match ethType(int type) {
        return field(MatchField.ETH_TYPE, type);
    }

    public Match ethSrc(String mac) {
        return field(MatchField.ETH_SRC, mac);
    }

    public Match ethDst(String mac) {
        return field(MatchField.ETH_DST, mac);
    }

    public Match vlanVid(int vid) {
        return field(MatchField.VLAN_VID, vid);
    }

    public Match vlanPcp(int pcp) {
        return field(MatchField.VLAN_PCP, pcp);
    }

    public Match ipProto(int proto) {
        return field(MatchField.IP_PROTO, proto);
    }

    public Match ipDscp(int dscp) {
        return field(MatchField.IP_DSCP, dscp);
    }
    /** IPv4 source: an address, "a.b.c.d/len" or "a.b.c.d%mask". */
    public Match ipv4Src(String address) {
        return field(MatchField.IPV4_SRC, address);
    }

    public Match ipv4Dst(String address) {
        return field(MatchField.IPV4_DST, address);
    }

    public Match ipv6Src(String address) {
        return field(MatchField.IPV6_SRC, address);
    }

    public Match ipv6Dst(String address) {
        return field(MatchField.IPV6_DST, address);
    }

    public Match tcpSrc(int port) {
        return field(MatchField.TCP_SRC, port);
    }

    public Match tcpDst(int port) {
        return field(MatchField.TCP_DST, port);
    }

    public Match udpSrc(int port) {
        return field(MatchField.UDP_SRC, port);
    }

    public Match udpDst(int port) {
        return field(MatchField.UDP_DST, port);
    }

    public Match icmpv4Type(int type) {
        return field(MatchField.ICMPV4_TYPE, type);
    }

    public Match icmpv4Code(int code) {
        return field(MatchField.ICMPV4_CODE, code);
    }

    public Match arpOp(int op) {
        return field(MatchField.ARP_OP, op);
    }

    private Match put(MatchField field, Object value) {
        if (fields.containsKey(field)) {
            throw new IllegalArgumentException("header match sets " + field + " twice");
        }
        fillPrerequisite(field);
        fields.put(field, value);
        return this;
    }

    /** Adds the usual value of the field this one depends on, when it is not set yet. */
    private void fillPrerequisite(MatchField f) {
        MatchField pre;
        long value;
        switch (f) {
            case IP_PROTO, IP_DSCP, IP_ECN, IPV4_SRC, IPV4_DST -> {
                pre = MatchField.ETH_TYPE;
                value = 0x0800;
            }
            case TCP_SRC, TCP_DST -> {
                pre = MatchField.IP_PROTO;
                value = 6;
            }
            case UDP_SRC, UDP_DST -> {
                pre = MatchField.IP_PROTO;
                value = 17;
            }
            case SCTP_SRC, SCTP_DST -> {
                pre = MatchField.IP_PROTO;
                value = 132;
            }
            case ICMPV4_TYPE, ICMPV4_CODE -> {
                pre = MatchField.IP_PROTO;
                value = 1;
            }
            case ICMPV6_TYPE, ICMPV6_CODE -> {
                if (!fields.containsKey(MatchField.ETH_TYPE)) {
                    fields.put(MatchField.ETH_TYPE, 0x86dd);
                }
                pre = MatchField.IP_PROTO;
                value = 58;
            }
            case ARP_OP, ARP_SPA, ARP_TPA, ARP_SHA, ARP_THA -> {
                pre = MatchField.ETH_TYPE;
                value = 0x0806;
            }
            case IPV6_SRC, IPV6_DST, IPV6_FLABEL, IPV6_ND_TARGET, IPV6_ND_SLL, IPV6_ND_TLL, IPV6_EXTHDR -> {
                pre = MatchField.ETH_TYPE;
                value = 0x86dd;
            }
            case MPLS_LABEL, MPLS_TC, MPLS_BOS -> {
                pre = MatchField.ETH_TYPE;
                value = 0x8847;
            }
            case PBB_ISID, PBB_UCA -> {
                pre = MatchField.ETH_TYPE;
                value = 0x88e7;
            }
            default -> {
                return;
            }
        }
        if (!fields.containsKey(pre)) {
            fillPrerequisite(pre);
            fields.put(pre, value);
        }
    }

    /** The fields set so far, in order (prerequisites first). */
    public List<MatchField> fields() {
        return List.copyOf(fields.keySet());
    }

    /** The wire form: {"ETH_TYPE": 2048, "IPV4_SRC": "10.0.0.0/8", ...}. */
    public ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        fields.forEach((f, v) -> {
            if (v instanceof Number n) {
                o.put(f.name(), n.longValue());
            } else {
                o.put(f.name(), (String) v);
            }
        });
        return o;
    }

    /**
     * Parses the match as an OBI would.
     *
     * @throws org.openbox.protocol.ProtocolException BAD_HEADER_MATCH naming field and value
     */
    public HeaderMatch parse() {
        return HeaderMatchParser.parse(toJson());
    }

    @Override
    public String toString() {
        return toJson().toString();
    }
}
