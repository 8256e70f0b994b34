package org.openbox.apps.firewall;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the header matches of one rule from its 5-tuple parts, adding the prerequisites
 * the header-match grammar asks for (ETH_TYPE for IPv4 fields, IP_PROTO for ports).
 * Ports are compared only for TCP and UDP packets.
 */
final class MatchBuilder {
    private Integer proto;
    private String src;
    private String dst;
    private String sport;
    private String dport;

    MatchBuilder proto(Integer p) {
        this.proto = p;
        return this;
    }

    MatchBuilder src(String v) {
        this.src = v;
        return this;
    }

    MatchBuilder dst(String v) {
        this.dst = v;
        return this;
    }

    MatchBuilder sport(String v) {
        this.sport = v;
        return this;
    }

    MatchBuilder dport(String v) {
        this.dport = v;
        return this;
    }

    List<Map<String, String>> build() {
        boolean ports = sport != null || dport != null;
        List<Map<String, String>> out = new ArrayList<>();
        if (proto != null) {
            out.add(one(proto, proto == 6 || proto == 17));
        } else if (!ports) {
            out.add(one(null, false));
        } else {
            out.add(one(6, true));
            out.add(one(17, true));
            Map<String, String> others = one(null, false);
            others.put("IP_PROTO", "[[0:5],[7:16],[18:255]]");
            out.add(others);
        }
        return out;
    }

    private Map<String, String> one(Integer p, boolean withPorts) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("ETH_TYPE", "0x0800");
        if (p != null) {
            m.put("IP_PROTO", Integer.toString(p));
        }
        if (src != null) {
            m.put("IPV4_SRC", src);
        }
        if (dst != null) {
            m.put("IPV4_DST", dst);
        }
        if (withPorts) {
            String prefix = p == 6 ? "TCP" : "UDP";
            if (sport != null) {
                m.put(prefix + "_SRC", sport);
            }
            if (dport != null) {
                m.put(prefix + "_DST", dport);
            }
        }
        return m;
    }
}
