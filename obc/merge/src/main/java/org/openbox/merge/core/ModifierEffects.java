package org.openbox.merge.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.openbox.protocol.match.MatchField;

/**
 * What a modifier may change, as far as classifiers can see: the header-match fields it
 * rewrites and whether it can move or change the L4 payload. A classifier may be moved in
 * front of a modifier only when the two are disjoint (same decision on the packet before and
 * after the modifier). Unknown modifiers conflict with everything. No modifier is disjoint
 * from a whole-frame regex (every modifier changes some byte of the frame).
 */
public final class ModifierEffects {
    private static final Map<String, MatchField> REWRITER_FIELDS = Map.ofEntries(
            Map.entry("eth_dst", MatchField.ETH_DST), Map.entry("eth_src", MatchField.ETH_SRC),
            Map.entry("ipv4_src", MatchField.IPV4_SRC), Map.entry("ipv4_dst", MatchField.IPV4_DST),
            Map.entry("ipv4_dscp", MatchField.IP_DSCP), Map.entry("ipv4_ecn", MatchField.IP_ECN),
            Map.entry("tcp_src", MatchField.TCP_SRC), Map.entry("tcp_dst", MatchField.TCP_DST),
            Map.entry("udp_src", MatchField.UDP_SRC), Map.entry("udp_dst", MatchField.UDP_DST));

    private ModifierEffects() {}

    /** True when the modifier cannot change the outcome of any of the rules. */
    public static boolean disjoint(String type, ObjectNode config, List<Rule> rules) {
        Set<MatchField> read = EnumSet.noneOf(MatchField.class);
        boolean payload = false;
        for (Rule r : rules) {
            read.addAll(r.fields());
            if (!r.patterns().isEmpty()) {
                if (r.whole()) return false;
                payload = true;
            }
        }
        switch (type) {
            case "DecIpTtl":
                return true; // TTL / hop limit and checksum: no match field, no payload byte
            case "NetworkHeaderFieldsRewriter": {
                if (config == null) return true;
                for (var it = config.fieldNames(); it.hasNext(); ) {
                    String k = it.next();
                    if (k.equals("ipv4_ttl")) continue;
                    MatchField f = REWRITER_FIELDS.get(k);
                    if (f == null) return false; // eth_type, ipv4_proto, unknown: the parse may change
                    if (read.contains(f)) return false;
                }
                return true;
            }
            default:
                return false; // VLAN push/pop and others change the layout
        }
    }
}
