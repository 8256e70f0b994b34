package org.openbox.apps.ips;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The regexes of content/pcre items keep Snort's positions exactly and stay in the form the
 * OBI's matcher takes (no empty repeats, '^' only at the start of a regex). Java's regex
 * engine stands in for the matcher here; tests/system/rulesets.sh compiles every regex of
 * snort-web.rules with the real OBI.
 */
class PayloadBuilderTest {
    private final SnortRuleParser parser = new SnortRuleParser(SnortVariables.defaults());

    private List<String> patterns(String options) {
        SnortRuleParser.Result r = parser.parse(List.of("alert tcp any any -> any any (" + options + " sid:1;)"));
        assertEquals(List.of(), r.skipped(), "rule runs");
        return r.rules().get(0).patterns();
    }

    private String reasonSkipped(String options) {
        SnortRuleParser.Result r = parser.parse(List.of("alert tcp any any -> any any (" + options + " sid:1;)"));
        assertEquals(0, r.rules().size(), "rule is skipped");
        return r.skipped().get(0).reason();
    }

    /** A payload matches when every regex of the rule is found in it. */
    private static boolean matches(List<String> res, String payload) {
        return res.stream().allMatch(re -> Pattern.compile(re).matcher(payload).find());
    }

    /** What the OBI's matcher refuses: empty repeats and start anchors after the first character. */
    private static void assertMatcherForm(List<String> res) {
        for (String re : res) {
            assertFalse(re.matches("(?s).*\\{0,0}.*"), "no empty repeat: " + re);
            assertFalse(re.replace("[^", "").replace("(?:^", "").substring(1).contains("^"), "no embedded '^': " + re);
        }
    }

    @Test
    void depthAsLongAsTheContentAnchorsItWithoutAnEmptyRepeat() {
        List<String> ps = patterns("content:\"LOCK \"; depth:5;");
        assertMatcherForm(ps);
        assertTrue(matches(ps, "LOCK /x HTTP/1.1"));
        assertFalse(matches(ps, "xLOCK /x"));
    }

    @Test
    void withinAfterAZeroDistanceGapIsNoEmptyRepeat() {
        List<String> ps = patterns("content:\".pl\"; content:\".\"; distance:0; within:1;");
        assertMatcherForm(ps);
        assertTrue(matches(ps, "a.pl.x"));
        assertFalse(matches(ps, "a.plx."));
    }

    @Test
    void distanceAndWithinOpenAWindowAfterThePreviousMatch() {
        // within counts from the end of the previous match plus the distance
        List<String> ps = patterns("content:\"ABC\"; content:\"EFG\"; distance:1; within:10;");
        assertFalse(matches(ps, "ABCEFG"));
        assertTrue(matches(ps, "ABCxEFG"));
        assertTrue(matches(ps, "ABCx123456EFG"));
        assertTrue(matches(ps, "ABCx1234567EFG"));
        assertFalse(matches(ps, "ABCx12345678EFG"));
        assertTrue(matches(ps, "ABCxx123456EFG"));
        assertFalse(matches(ps, "ABCxx1234567EFG"));
        assertTrue(matches(ps, "ABC ABCx1234567EFG"), "any occurrence of the first content may start the chain");
    }

    @Test
    void depthOnARelativeContentBoundsItLikeWithin() {
        List<String> ps = patterns("content:\"ab\"; content:\"cd\"; distance:2; depth:3;");
        assertTrue(matches(ps, "abxxcd"));
        assertTrue(matches(ps, "abxxxcd"));
        assertFalse(matches(ps, "abxxxxcd"));
        assertFalse(matches(ps, "abxcd"));
    }

    @Test
    void aRelativeFirstContentIsRelativeToTheStartOfItsBuffer() {
        List<String> ps = patterns("content:\"ab\"; distance:2; within:3;");
        assertTrue(matches(ps, "xxab"));
        assertTrue(matches(ps, "xxxab"));
        assertFalse(matches(ps, "xab"));
        assertFalse(matches(ps, "xxxxab"));
    }

    @Test
    void offsetAndDepthCountFromTheStartOfAnHttpBuffer() {
        List<String> ps = patterns("content:\"/cgi\"; http_uri; depth:4;");
        assertTrue(matches(ps, "GET /cgi-bin/x HTTP/1.1\r\n"));
        assertFalse(matches(ps, "GET /a/cgi-bin/x HTTP/1.1\r\n"));
        assertFalse(matches(ps, "GET / HTTP/1.1\r\nX: /cgi\r\n"));
    }

    @Test
    void windowsWiderThanAnyFrameAreUnbounded() {
        List<String> ps = patterns("content:\"a\"; content:\"b\"; distance:0; within:100000;");
        assertFalse(ps.get(0).contains("100000"));
        assertTrue(matches(ps, "a" + "x".repeat(20000) + "b"));
        assertTrue(reasonSkipped("content:\"a\"; offset:20000;").contains("beyond the largest frame"));
    }

    @Test
    void pcreStartAnchorInAnAlternativeMatchesAtTheBufferStartOrAfterANewlineWithM() {
        List<String> ps = patterns("content:\"POST\"; http_method; pcre:\"/(^|&)cmd=[^&]*?%3b/Pim\";");
        assertMatcherForm(ps);
        String head = "POST /x HTTP/1.1\r\nHost: a\r\n\r\n";
        assertTrue(matches(ps, head + "cmd=a%3bb"));
        assertTrue(matches(ps, head + "a=1&cmd=a%3bb"));
        assertTrue(matches(ps, head + "a=1\ncmd=a%3bb"), "m: '^' after a newline");
        assertFalse(matches(ps, head + "xcmd=a%3bb"));
        assertFalse(matches(ps, "POST /x?cmd=a%3bb HTTP/1.1\r\n\r\n"), "not in the body");
    }

    @Test
    void pcreStartAnchorWithoutMMatchesOnlyAtTheBufferStart() {
        List<String> ps = patterns("pcre:\"/(^|&)id=1/U\";");
        assertMatcherForm(ps);
        assertTrue(matches(ps, "GET id=1 HTTP/1.1\r\n"));
        assertTrue(matches(ps, "GET /a?b=2&id=1 HTTP/1.1\r\n"));
        assertFalse(matches(ps, "GET /a?xid=1 HTTP/1.1\r\n"));
    }

    @Test
    void relativePcreAnchorsAtTheEndOfThePreviousItem() {
        List<String> ps = patterns("content:\"foo\"; pcre:\"/^bar/R\";");
        assertEquals(1, ps.size());
        assertMatcherForm(ps);
        assertTrue(matches(ps, "xxfoobar"));
        assertFalse(matches(ps, "fooxbar"));
        List<String> loose = patterns("content:\"foo\"; pcre:\"/bar/R\";");
        assertTrue(matches(loose, "fooxbar"));
        assertFalse(matches(loose, "barfoo"));
    }

    @Test
    void pcreFlagAAnchorsAtTheBufferStart() {
        List<String> ps = patterns("pcre:\"/abc/A\";");
        assertTrue(matches(ps, "abcd"));
        assertFalse(matches(ps, "xabc"));
    }

    @Test
    void urilenBoundsTheLengthOfTheRequestTarget() {
        List<String> exact = patterns("urilen:6; content:\"/HNAP1\"; http_uri;");
        assertMatcherForm(exact);
        assertTrue(matches(exact, "GET /HNAP1 HTTP/1.1\r\n"));
        assertFalse(matches(exact, "GET /HNAP1/x HTTP/1.1\r\n"));
        List<String> longer = patterns("content:\"/shell?\"; http_uri; urilen:>16,norm;");
        assertTrue(matches(longer, "GET /shell?cd+/tmp;xy HTTP/1.1\r\n"));
        assertFalse(matches(longer, "GET /shell?x HTTP/1.1\r\n"));
        List<String> range = patterns("content:\"/a\"; http_uri; urilen:2<>5;");
        assertFalse(matches(range, "GET /a HTTP/1.1\r\n"));
        assertTrue(matches(range, "GET /abc HTTP/1.1\r\n"));
        assertFalse(matches(range, "GET /abcd HTTP/1.1\r\n"));
    }

    @Test
    void isdataatNeedsBytesAfterThePreviousMatchInItsBuffer() {
        List<String> ps = patterns("content:\"id=\"; http_uri; isdataat:5,relative;");
        assertMatcherForm(ps);
        assertTrue(matches(ps, "GET /?id=123456 HTTP/1.1\r\n"));
        assertFalse(matches(ps, "GET /?id=12345 HTTP/1.1\r\n"), "a byte at offset 5 after the match");
        assertTrue(matches(patterns("isdataat:3; content:\"a\";"), "abcd"));
        assertFalse(matches(patterns("isdataat:3; content:\"a\";"), "abc"));
        assertTrue(reasonSkipped("content:\"a\"; isdataat:5,relative; content:\"b\"; distance:0;")
                .contains("after a relative isdataat"));
        assertTrue(reasonSkipped("content:\"a\"; isdataat:!5,relative;").contains("negated isdataat"));
    }

    @Test
    void fileDataPutsTheFollowingContentsInTheBody() {
        List<String> ps = patterns("file_data; content:\"option=com_x\"; content:\"/a\"; http_uri;");
        assertTrue(matches(ps, "POST /a HTTP/1.1\r\nHost: h\r\n\r\noption=com_x"));
        assertFalse(matches(ps, "POST /a?option=com_x HTTP/1.1\r\nHost: h\r\n\r\n"));
    }

    @Test
    void whatCannotBeWrittenExactlyIsSkippedWithItsReason() {
        assertTrue(reasonSkipped("content:\"a\"; content:\"b\"; distance:-2;").contains("negative distance"));
        assertTrue(reasonSkipped("pcre:\"/a^b/\";").contains("'^' after text"));
        assertTrue(reasonSkipped("content:\"abc\"; depth:2;").contains("shorter than the content"));
        assertTrue(reasonSkipped("content:\"a\"; content:\"b\"; offset:1; distance:1;")
                .contains("offset together"));
    }

    @Test
    void aBraceThatStartsNoQuantifierIsALiteralAsInPcre() {
        // the Log4Shell rules of snort-http.rules: "\x24{" is "${", not a repetition
        List<String> ps = patterns("pcre:\"/\\x24{(\\x24{(upper|lower):j}|j)ndi/i\";");
        assertMatcherForm(ps);
        assertTrue(matches(ps, "GET /?x=${jndi:ldap://a}"));
        assertTrue(matches(ps, "GET /?x=${${lower:j}ndi:ldap://a}"));
        assertFalse(matches(ps, "GET /?x=$jndi"));
        // quantifiers and braces in classes or escaped stay as they are
        assertEquals("a{2}b{1,}c{1,3}[{]\\{\\{x", PayloadBuilder.literalBraces("a{2}b{1,}c{1,3}[{]\\{{x"));
        assertEquals("[]{]\\{,2}", PayloadBuilder.literalBraces("[]{]{,2}"));
    }
}
