package org.openbox.apps.ips;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SnortRuleParserTest {
    private final SnortRuleParser parser = new SnortRuleParser(SnortVariables.defaults());

    private SnortRuleParser.Result parse(String... lines) {
        return parser.parse(List.of(lines));
    }

    private static boolean matches(String regex, String payload) {
        return Pattern.compile(regex).matcher(payload).find();
    }

    @Test
    void headerBecomesHeaderMatchWithPrerequisites() {
        SnortRule r = parse("alert tcp 10.0.0.0/8 any -> [192.168.1.1,192.168.1.2] $HTTP_PORTS "
                        + "(msg:\"x\"; content:\"abc\"; sid:7; rev:2;)")
                .rules()
                .get(0);
        assertEquals(7, r.sid());
        assertEquals(2, r.rev());
        assertEquals(
                List.of(Map.of(
                        "ETH_TYPE",
                        "0x0800",
                        "IP_PROTO",
                        "6",
                        "IPV4_SRC",
                        "10.0.0.0/8",
                        "IPV4_DST",
                        "[192.168.1.1,192.168.1.2]",
                        "TCP_DST",
                        "[80,8080]")),
                r.headers());
    }

    @Test
    void bidirectionalRuleGivesBothDirections() {
        SnortRule r = parse("alert udp 1.2.3.4 53 <> any 1024: (content:\"q\"; sid:1;)")
                .rules()
                .get(0);
        assertEquals(2, r.headers().size());
        assertEquals("53", r.headers().get(0).get("UDP_SRC"));
        assertEquals("[1024:]", r.headers().get(0).get("UDP_DST"));
        assertEquals("53", r.headers().get(1).get("UDP_DST"));
        assertEquals("1.2.3.4", r.headers().get(1).get("IPV4_DST"));
    }

    @Test
    void contentWithHexAndNocaseMatchesTheRightBytes() {
        SnortRule r = parse("alert tcp any any -> any any (content:\"GET|20|/a\"; nocase; sid:1;)")
                .rules()
                .get(0);
        String re = r.patterns().get(0);
        assertTrue(matches(re, "xx get /A HTTP/1.1"));
        assertFalse(matches(re, "GET/a"));
    }

    @Test
    void offsetAndDepthAnchorTheContent() {
        String re = parse("alert tcp any any -> any any (content:\"ab\"; offset:2; depth:4; sid:1;)")
                .rules()
                .get(0)
                .patterns()
                .get(0);
        assertTrue(matches(re, "xxab"));
        assertTrue(matches(re, "xxxxab")); // starts at 4 = offset + depth - length
        assertFalse(matches(re, "xab")); // before the offset
        assertFalse(matches(re, "xxxxxab")); // past offset + depth
    }

    @Test
    void relativeContentIsBoundedByDistanceAndWithin() {
        List<String> ps = parse(
                        "alert tcp any any -> any any (content:\"aa\"; content:\"bb\"; distance:1; within:3; sid:1;)")
                .rules()
                .get(0)
                .patterns();
        assertEquals(1, ps.size());
        assertTrue(matches(ps.get(0), "aaxbb"));
        assertTrue(matches(ps.get(0), "aaxxbb")); // ends 4 = distance + within after "aa"
        assertFalse(matches(ps.get(0), "aabb")); // distance 1 not honoured
        assertFalse(matches(ps.get(0), "aaxxxbb")); // beyond distance + within
    }

    @Test
    void httpUriContentMustBeInTheRequestTarget() {
        String re = parse("alert tcp any any -> any 80 (content:\"/etc/passwd\"; http_uri; sid:1;)")
                .rules()
                .get(0)
                .patterns()
                .get(0);
        assertTrue(matches(re, "GET /x/../etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n"));
        assertFalse(matches(re, "GET / HTTP/1.1\r\nReferer: /etc/passwd\r\n\r\n"));
    }

    @Test
    void pcreFlagsAndUriBufferAreHonoured() {
        String re = parse("alert tcp any any -> any 80 (content:\"<script\"; http_uri; "
                        + "pcre:\"/<script[^>]*>.*<\\/script>/Ui\"; sid:1;)")
                .rules()
                .get(0)
                .patterns()
                .get(1);
        assertTrue(matches(re, "GET /q=<SCRIPT>x</script> HTTP/1.1\r\n"));
        assertFalse(matches(re, "GET / HTTP/1.1\r\nX: <script>x</script>\r\n"));
    }

    @Test
    void unsupportedOptionsAreSkippedWithAReason() {
        SnortRuleParser.Result res = parse(
                "alert tcp any any -> any 80 (msg:\"a\"; content:\"x\"; byte_test:4,>,1,0; sid:11;)",
                "alert tcp any any -> any 80 (msg:\"b\"; content:!\"x\"; sid:12;)",
                "alert tcp any any -> any 80 (msg:\"c\"; content:\"x\"; pcre:\"/(?!a)b/\"; sid:13;)",
                "alert tcp !10.0.0.1 any -> any 80 (msg:\"d\"; content:\"x\"; sid:14;)",
                "alert tcp any any -> any 80 (msg:\"e\"; flowbits:isset,foo; content:\"x\"; sid:15;)",
                "alert tcp any any -> any 80 (msg:\"ok\"; content:\"x\"; sid:16;)");
        assertEquals(1, res.rules().size());
        assertEquals(
                List.of(11L, 12L, 13L, 14L, 15L),
                res.skipped().stream().map(SkippedRule::sid).toList());
        assertTrue(res.skipped().get(0).reason().contains("byte_test"));
        assertTrue(res.skipped().get(1).reason().contains("negated content"));
        assertTrue(res.skipped().get(2).reason().contains("look-around"));
    }

    @Test
    void theSnortWebRulesLoadAndEveryRuleIsRunOrReported() throws Exception {
        Path data = Path.of(System.getProperty("openbox.data", "../../../shared/data"));
        Path rules = data.resolve("snort-web.rules");
        List<String> lines = Files.readAllLines(rules, StandardCharsets.ISO_8859_1);
        SnortRuleParser p = new SnortRuleParser(SnortVariables.load(data.resolve("snort-vars.conf")));
        SnortRuleParser.Result res = p.parse(lines);
        long ruleLines =
                lines.stream().filter(l -> !l.isBlank() && !l.startsWith("#")).count();
        assertEquals(ruleLines, res.rules().size() + res.skipped().size());
        assertTrue(
                res.rules().size() > 900,
                "most web rules are expressible: " + res.rules().size());
        for (SnortRule r : res.rules()) {
            assertTrue(r.sid() > 0);
            assertFalse(r.msg().isEmpty());
            for (String re : r.patterns()) {
                Pattern.compile(re); // the translation is a well-formed regex
            }
        }
        System.out.printf(
                "snort-web.rules: %d rules run, %d skipped%n",
                res.rules().size(), res.skipped().size());
    }
}
