package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openbox.merge.core.HeaderAlgebra;
import org.openbox.merge.core.Inexpressible;
import org.openbox.merge.core.Rule;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;
import org.openbox.protocol.match.Term;

class HeaderAlgebraTest {
    static List<Term> terms(String field, String value) {
        return HeaderMatchParser.parseValue(field, TextNode.valueOf(value)).terms();
    }

    static List<Term> and(String field, String a, String b) throws Inexpressible {
        MatchField f = MatchField.byName(field).orElseThrow();
        return HeaderAlgebra.intersect(f, terms(field, a), terms(field, b));
    }

    /** Brute force over the whole 16-bit field: the intersection admits exactly the common values. */
    static void assertExact(String a, String b) throws Inexpressible {
        List<Term> x = terms("tcp_dst", a), y = terms("tcp_dst", b), r = and("tcp_dst", a, b);
        for (int v = 0; v < 65536; v++) {
            BigInteger bv = BigInteger.valueOf(v);
            boolean want =
                    x.stream().anyMatch(t -> t.contains(bv)) && y.stream().anyMatch(t -> t.contains(bv));
            boolean got = r.stream().anyMatch(t -> t.contains(bv));
            assertEquals(want, got, a + " AND " + b + " at " + v + " gave " + r);
        }
    }

    @Test
    void intersectionsAreExact() throws Inexpressible {
        assertExact("80", "[1:100]");
        assertExact("[80:443]", "[100:8080]");
        assertExact("0x50%0xff", "0x1050%0xf0ff");
        assertExact("0x50%0xff", "0x51%0xff");
        assertExact("0x1000%0xf000", "[0x1100:0x3000]"); // prefix mask with a range
        assertExact("0x50%0xff", "[0x100:0x130]"); // non-prefix mask, few values: listed
        assertExact("[22,[80:100],443]", "[90:500]");
    }

    @Test
    void disjointTermsGiveNothing() throws Inexpressible {
        assertTrue(and("tcp_dst", "80", "443").isEmpty());
        assertTrue(and("ipv4_src", "10.0.0.0/8", "192.168.0.0/16").isEmpty());
        assertEquals(
                List.of(new Term.Masked(BigInteger.valueOf(0x0a000001L), MatchField.IPV4_SRC.fullMask())),
                and("ipv4_src", "10.0.0.0/8", "10.0.0.1"));
    }

    @Test
    void rangeAgainstPartlyOverlappingNonPrefixMaskIsInexpressible() {
        assertThrows(Inexpressible.class, () -> and("tcp_dst", "0x50%0xff", "[0:0x7fff]"));
    }

    @Test
    void coverIsConservativeButFindsTheObviousCases() {
        Rule any = Rule.any(List.of());
        Rule web = new Rule(
                Map.of(
                        MatchField.ETH_TYPE,
                        terms("eth_type", "0x800"),
                        MatchField.IP_PROTO,
                        terms("ip_proto", "6"),
                        MatchField.TCP_DST,
                        terms("tcp_dst", "80")),
                List.of(),
                false,
                List.of());
        Rule tcp = new Rule(
                Map.of(
                        MatchField.ETH_TYPE,
                        terms("eth_type", "0x800"),
                        MatchField.IP_PROTO,
                        terms("ip_proto", "6"),
                        MatchField.TCP_DST,
                        terms("tcp_dst", "[0:1023]")),
                List.of(),
                false,
                List.of());
        assertTrue(HeaderAlgebra.covers(any, web));
        assertTrue(HeaderAlgebra.covers(tcp, web));
        assertFalse(HeaderAlgebra.covers(web, tcp));
        Rule webGet = new Rule(web.header(), List.of("GET"), false, List.of());
        assertTrue(HeaderAlgebra.covers(web, webGet));
        assertFalse(HeaderAlgebra.covers(webGet, web));
    }
}
