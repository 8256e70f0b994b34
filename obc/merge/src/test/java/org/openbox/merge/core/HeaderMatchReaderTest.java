package org.openbox.merge.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.match.HeaderMatch;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;

/** The reader answers as HeaderMatchParser.parse, value for value and error for error. */
class HeaderMatchReaderTest {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    /** Field names (some spelled differently, some unknown) and values (some invalid) to draw from. */
    private static final String[] NAMES = {
        "ETH_TYPE",
        "eth_type",
        "IP_PROTO",
        "IPV4_PROTO",
        "IPV4_SRC",
        "ipv4_dst",
        "TCP_DST",
        "UDP_SRC",
        "VLAN_VID",
        "VLAN_PCP",
        "ICMPV4_TYPE",
        "ARP_OP",
        "IPV6_SRC",
        "ETH_SRC",
        "NO_SUCH_FIELD"
    };

    private static final Object[] VALUES = {
        "0x0800",
        "0x0806",
        "0x86dd",
        2048,
        "6",
        17,
        "1",
        "[6,17]",
        "[1:6]",
        "10.0.0.0/8",
        "10.1.2.3",
        "192.168.0.0%255.255.0.0",
        "80",
        "[1024:65535]",
        "[53,80,443]",
        "300",
        "0x1ff",
        "::1",
        "2001:db8::/32",
        "00:11:22:33:44:55",
        "not-a-value",
        "[1:",
        "",
        -1,
        1.5,
        true
    };

    private static Object draw(Random r, Object[] from) {
        return from[r.nextInt(from.length)];
    }

    private static ObjectNode randomMatch(Random r) {
        ObjectNode o = F.objectNode();
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
            String name = (String) draw(r, NAMES);
            Object v = draw(r, VALUES);
            if (v instanceof Integer k) o.put(name, k);
            else if (v instanceof Double d) o.put(name, d);
            else if (v instanceof Boolean b) o.put(name, b);
            else o.put(name, (String) v);
        }
        return o;
    }

    @Test
    void sameResultsAndErrorsAsTheParser() {
        Random r = new Random(7);
        HeaderMatchReader reader = new HeaderMatchReader();
        int ok = 0, failed = 0;
        for (int i = 0; i < 20_000; i++) {
            JsonNode m = i % 500 == 0 ? F.textNode("not an object") : randomMatch(r);
            HeaderMatch want;
            try {
                want = HeaderMatchParser.parse(m);
            } catch (ProtocolException e) {
                ProtocolException got = assertThrows(ProtocolException.class, () -> reader.parse(m), m.toString());
                assertEquals(e.getMessage(), got.getMessage(), m.toString());
                assertEquals(e.subtype(), got.subtype());
                assertThrows(ProtocolException.class, () -> reader.terms(m));
                failed++;
                continue;
            }
            assertEquals(want, reader.parse(m), m.toString());
            java.util.Map<MatchField, List<org.openbox.protocol.match.Term>> terms =
                    new java.util.EnumMap<>(MatchField.class);
            want.fields().forEach((f, fm) -> terms.put(f, fm.terms()));
            assertEquals(terms, reader.terms(m), m.toString());
            ok++;
        }
        assertTrue(ok > 1_000 && failed > 1_000, ok + " parsed, " + failed + " refused");
    }

    /** The reader remembers whole-object checks by the values of these fields only: no other field is a prerequisite. */
    @Test
    void prerequisitesNameOnlyTheRememberedFields() {
        int dependent = 0;
        for (MatchField f : MatchField.values()) {
            String value =
                    switch (f.syntax()) {
                        case INTEGER -> "1";
                        case IPV4 -> "10.0.0.1";
                        case IPV6 -> "::1";
                        case MAC -> "00:11:22:33:44:55";
                    };
            try {
                HeaderMatchParser.parse(F.objectNode().put(f.name(), value));
            } catch (ProtocolException e) {
                String m = e.getMessage();
                int at = m.indexOf("needs ");
                assertTrue(at >= 0, m);
                String needed = m.substring(at + 6).split(" ")[0];
                assertTrue(HeaderMatchReader.PREREQUISITE_FIELDS.contains(MatchField.valueOf(needed)), m);
                dependent++;
            }
        }
        assertTrue(dependent > 10, dependent + " fields with a prerequisite");
    }

    @Test
    void aPrerequisiteValueSeenBeforeDoesNotHideAWrongOne() {
        HeaderMatchReader reader = new HeaderMatchReader();
        reader.parse(F.objectNode().put("ETH_TYPE", "0x0800").put("IPV4_SRC", "10.0.0.1"));
        ObjectNode arp = F.objectNode().put("ETH_TYPE", "0x0806").put("IPV4_SRC", "10.0.0.1");
        ProtocolException e = assertThrows(ProtocolException.class, () -> reader.parse(arp));
        assertEquals(
                assertThrows(ProtocolException.class, () -> HeaderMatchParser.parse(arp))
                        .getMessage(),
                e.getMessage());
    }

    @Test
    void deeplyNestedValuesAreRefusedBeforeParsing() {
        HeaderMatchReader reader = new HeaderMatchReader();
        ObjectNode deep = F.objectNode().put("TCP_DST", "[".repeat(100_000) + "80" + "]".repeat(100_000));
        ProtocolException e = assertThrows(ProtocolException.class, () -> reader.parse(deep));
        assertEquals("header match field TCP_DST: value nested deeper than 32 brackets", e.getMessage());
        ObjectNode ok = F.objectNode()
                .put("ETH_TYPE", "0x0800")
                .put("IP_PROTO", 6)
                .put("TCP_DST", "[".repeat(32) + "80" + "]".repeat(32));
        assertEquals(HeaderMatchParser.parse(ok), reader.parse(ok));
    }
}
