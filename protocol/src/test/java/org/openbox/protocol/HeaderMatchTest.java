package org.openbox.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.match.FieldMatch;
import org.openbox.protocol.match.HeaderMatch;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;
import org.openbox.protocol.match.Syntax;
import org.openbox.protocol.match.Term;

/** Field table, term semantics and wire values built in code (as the merge module does). */
class HeaderMatchTest {
    private static BigInteger b(long v) {
        return BigInteger.valueOf(v);
    }

    @Test
    void fieldTable() {
        assertEquals(MatchField.IP_PROTO, MatchField.byName("ipv4_PROTO").orElseThrow());
        assertEquals(MatchField.TCP_DST, MatchField.byName("Tcp_Dst").orElseThrow());
        assertTrue(MatchField.byName("tcp-dst").isEmpty());
        assertEquals(38, MatchField.values().length);
        assertEquals(Syntax.IPV6, MatchField.IPV6_ND_TARGET.syntax());
        assertEquals(b(0xfff), MatchField.VLAN_VID.fullMask());
        assertEquals(BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE), MatchField.IPV6_SRC.fullMask());
        assertTrue(MatchField.UDP_DST.required());
        assertFalse(MatchField.SCTP_DST.required());
    }

    @Test
    void termsAdmitValues() {
        FieldMatch m = HeaderMatchParser.parseValue("tcp_dst", TextNode.valueOf("[80%0xfff0,[1024:2047]]"));
        assertTrue(m.contains(b(0x5f)));
        assertFalse(m.contains(b(0x60)));
        assertTrue(m.contains(b(1024)) && m.contains(b(2047)));
        assertFalse(m.contains(b(2048)));
    }

    @Test
    void wireValuesOfBuiltMatches() {
        FieldMatch exact = new FieldMatch(MatchField.ETH_TYPE, List.of(new Term.Masked(b(0x800), b(0xffff))));
        assertEquals("0x800", exact.toWireValue().asText());
        FieldMatch v4 = new FieldMatch(
                MatchField.IPV4_DST,
                List.of(
                        new Term.Masked(b(0x0a000000L), b(0xff000000L)),
                        new Term.Range(b(0x0b000001L), b(0x0b000009L))));
        assertEquals(
                "[10.0.0.0%255.0.0.0,[11.0.0.1:11.0.0.9]]", v4.toWireValue().asText());
        FieldMatch mac =
                new FieldMatch(MatchField.ETH_SRC, List.of(new Term.Masked(b(0x001b213a4f5cL), b(0xffffffffffffL))));
        assertEquals("00:1b:21:3a:4f:5c", mac.toWireValue().asText());
        FieldMatch v6 = new FieldMatch(
                MatchField.IPV6_SRC, List.of(new Term.Masked(BigInteger.ONE, MatchField.IPV6_SRC.fullMask())));
        assertEquals("::1", v6.toWireValue().asText());
        HeaderMatch hm = HeaderMatchParser.parse(
                Vectors.MAPPER.createObjectNode().put("eth_type", 2048).put("ipv4_proto", "6"));
        assertEquals(
                "{\"ETH_TYPE\":\"0x800\",\"IP_PROTO\":\"0x6\"}", hm.toWire().toString());
    }

    @Test
    void ipv6RangeIsWrittenAsCoveringPrefixes() {
        BigInteger lo = new BigInteger("20010db8000000000000000000000005", 16);
        BigInteger hi = new BigInteger("20010db8000000000000000000000013", 16);
        FieldMatch r = new FieldMatch(MatchField.IPV6_DST, List.of(new Term.Range(lo, hi)));
        FieldMatch back = HeaderMatchParser.parseValue("ipv6_dst", r.toWireValue());
        for (BigInteger v = lo.subtract(b(3)); v.compareTo(hi.add(b(3))) <= 0; v = v.add(BigInteger.ONE)) {
            assertEquals(r.contains(v), back.contains(v), v.toString(16));
        }
        assertTrue(back.terms().stream().allMatch(t -> t instanceof Term.Masked));
    }

    @Test
    void errorsNameTheField() {
        ProtocolException e = assertThrows(
                ProtocolException.class, () -> HeaderMatchParser.parseValue("udp_src", TextNode.valueOf("[9:1]")));
        assertEquals(ErrorSubtype.BAD_HEADER_MATCH, e.subtype());
        assertTrue(e.getMessage().contains("UDP_SRC"), e.getMessage());
    }
}
