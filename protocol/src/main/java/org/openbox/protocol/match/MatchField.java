package org.openbox.protocol.match;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The header-match fields of spec 4.1 with their width, value syntax, whether the spec
 * lists them as required (4.1.1) or optional (4.1.2), and their prerequisite
 * (protocol/README.md, "Header-match values").
 */
public enum MatchField {
    ETH_DST(48, Syntax.MAC, true),
    ETH_SRC(48, Syntax.MAC, true),
    ETH_TYPE(16, Syntax.INTEGER, true),
    VLAN_VID(12, Syntax.INTEGER, true),
    VLAN_PCP(3, Syntax.INTEGER, true),
    IP_PROTO(8, Syntax.INTEGER, true),
    IP_DSCP(6, Syntax.INTEGER, false),
    IP_ECN(2, Syntax.INTEGER, false),
    IPV4_SRC(32, Syntax.IPV4, true),
    IPV4_DST(32, Syntax.IPV4, true),
    TCP_SRC(16, Syntax.INTEGER, true),
    TCP_DST(16, Syntax.INTEGER, true),
    UDP_SRC(16, Syntax.INTEGER, true),
    UDP_DST(16, Syntax.INTEGER, true),
    SCTP_SRC(16, Syntax.INTEGER, false),
    SCTP_DST(16, Syntax.INTEGER, false),
    ICMPV4_TYPE(8, Syntax.INTEGER, false),
    ICMPV4_CODE(8, Syntax.INTEGER, false),
    ARP_OP(16, Syntax.INTEGER, false),
    ARP_SPA(32, Syntax.IPV4, false),
    ARP_TPA(32, Syntax.IPV4, false),
    ARP_SHA(48, Syntax.MAC, false),
    ARP_THA(48, Syntax.MAC, false),
    IPV6_SRC(128, Syntax.IPV6, false),
    IPV6_DST(128, Syntax.IPV6, false),
    IPV6_FLABEL(20, Syntax.INTEGER, false),
    IPV6_ND_TARGET(128, Syntax.IPV6, false),
    IPV6_ND_SLL(48, Syntax.MAC, false),
    IPV6_ND_TLL(48, Syntax.MAC, false),
    IPV6_EXTHDR(9, Syntax.INTEGER, false),
    ICMPV6_TYPE(8, Syntax.INTEGER, false),
    ICMPV6_CODE(8, Syntax.INTEGER, false),
    MPLS_LABEL(20, Syntax.INTEGER, false),
    MPLS_TC(3, Syntax.INTEGER, false),
    MPLS_BOS(1, Syntax.INTEGER, false),
    PBB_ISID(24, Syntax.INTEGER, false),
    PBB_UCA(1, Syntax.INTEGER, false),
    TUNNEL_ID(64, Syntax.INTEGER, false);

    private final int width;
    private final Syntax syntax;
    private final boolean required;
    private final BigInteger fullMask;

    MatchField(int width, Syntax syntax, boolean required) {
        this.width = width;
        this.syntax = syntax;
        this.required = required;
        this.fullMask = BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE);
    }

    public int width() {
        return width;
    }

    public Syntax syntax() {
        return syntax;
    }

    /** True for the fields of spec 4.1.1 that every OBI must support. */
    public boolean required() {
        return required;
    }

    /** All ones over the field's width. */
    public BigInteger fullMask() {
        return fullMask;
    }

    /** Case-insensitive lookup; IPV4_PROTO is accepted as an alias of IP_PROTO. */
    public static Optional<MatchField> byName(String name) {
        if (name == null) {
            return Optional.empty();
        }
        Optional<MatchField> f = BY_NAME.get(name); // names are nearly always written in capitals
        return f != null ? f : BY_NAME.getOrDefault(name.toUpperCase(Locale.ROOT), Optional.empty());
    }

    // Upper-case name (and the alias IPV4_PROTO) -> field: every field value parsed looks one up.
    private static final Map<String, Optional<MatchField>> BY_NAME = byName();

    private static Map<String, Optional<MatchField>> byName() {
        Map<String, Optional<MatchField>> m = new HashMap<>();
        for (MatchField f : values()) {
            m.put(f.name(), Optional.of(f));
        }
        m.put("IPV4_PROTO", Optional.of(IP_PROTO));
        return Map.copyOf(m);
    }

    /**
     * What a field needs elsewhere in the same match: {@code field} must be present and, when
     * {@code values} is non-empty, admit only exact values from it.
     */
    record Prerequisite(MatchField field, Set<Integer> values) {}

    /** This field's prerequisite, or null when it has none. */
    Prerequisite prerequisite() {
        return switch (this) {
            case VLAN_PCP -> new Prerequisite(VLAN_VID, Set.of());
            case IP_PROTO, IP_DSCP, IP_ECN -> new Prerequisite(ETH_TYPE, Set.of(0x0800, 0x86dd));
            case IPV4_SRC, IPV4_DST -> new Prerequisite(ETH_TYPE, Set.of(0x0800));
            case TCP_SRC, TCP_DST -> new Prerequisite(IP_PROTO, Set.of(6));
            case UDP_SRC, UDP_DST -> new Prerequisite(IP_PROTO, Set.of(17));
            case SCTP_SRC, SCTP_DST -> new Prerequisite(IP_PROTO, Set.of(132));
            case ICMPV4_TYPE, ICMPV4_CODE -> new Prerequisite(IP_PROTO, Set.of(1));
            case ARP_OP, ARP_SPA, ARP_TPA, ARP_SHA, ARP_THA -> new Prerequisite(ETH_TYPE, Set.of(0x0806));
            case IPV6_SRC,
                    IPV6_DST,
                    IPV6_ND_TARGET,
                    IPV6_FLABEL,
                    IPV6_ND_SLL,
                    IPV6_ND_TLL,
                    IPV6_EXTHDR -> new Prerequisite(ETH_TYPE, Set.of(0x86dd));
            case ICMPV6_TYPE, ICMPV6_CODE -> new Prerequisite(IP_PROTO, Set.of(58));
            case MPLS_LABEL, MPLS_TC, MPLS_BOS -> new Prerequisite(ETH_TYPE, Set.of(0x8847, 0x8848));
            case PBB_ISID, PBB_UCA -> new Prerequisite(ETH_TYPE, Set.of(0x88e7));
            default -> null;
        };
    }
}
