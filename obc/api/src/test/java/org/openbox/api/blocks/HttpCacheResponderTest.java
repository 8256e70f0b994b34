package org.openbox.api.blocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.openbox.api.GraphBuilder;
import org.openbox.api.InvalidGraphException;
import org.openbox.catalogue.BlockClass;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.ErrorSubtype;

class HttpCacheResponderTest {

    private static final Catalogue CATALOGUE = Catalogue.load();
    private static final byte[] HTML = "<html>hi</html>".getBytes(StandardCharsets.US_ASCII);

    private static void build(HttpCacheResponder r) {
        new GraphBuilder(CATALOGUE)
                .connect(new FromDevice("in", "in"), r)
                .connect(r, 0, new ToDevice("back", "in"))
                .connect(r, 1, new ToDevice("out", "out"))
                .build();
    }

    @Test
    void theCatalogueHasItAsAnExtensionBlock() {
        BlockDescriptor d = CATALOGUE.find("HttpCacheResponder").orElseThrow();
        assertEquals("extension", d.spec());
        assertFalse(d.required());
        assertEquals(BlockClass.MODIFIER, d.blockClass());
        assertTrue(d.hasReadHandle("hits") && d.hasReadHandle("misses") && d.hasWriteHandle("reset_counts"));
        assertTrue(
                d.description().contains("Connection: close") && d.description().contains("X-Cache: HIT"),
                "the descriptor documents the headers responseHead writes");
    }

    @Test
    void entriesAreWrittenInOrderWithBase64Bodies() {
        HttpCacheResponder r = new HttpCacheResponder("cache")
                .entry("www.example.com", "/", "text/html", HTML)
                .entry("", "/a.txt", "text/plain", new byte[0])
                .mss(1000)
                .ttl(30);
        JsonNode e = r.config().get("entries");
        assertEquals(2, r.entries());
        assertEquals("www.example.com", e.get(0).get("host").asText());
        assertEquals(
                "<html>hi</html>",
                new String(Base64.getDecoder().decode(e.get(0).get("body").asText()), StandardCharsets.US_ASCII));
        assertFalse(e.get(1).has("host"), "no host: any host");
        assertEquals(1000, r.config().get("mss").asInt());
        build(r);
        assertEquals(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n"
                        + "X-Cache: HIT\r\n\r\n",
                HttpCacheResponder.responseHead("text/plain", 5));
    }

    @Test
    void checkNamesTheBadEntry() {
        assertBad(new HttpCacheResponder("c"), "no cached entries");
        assertBad(new HttpCacheResponder("c").entry("", "index.html", "text/html", HTML), "entry 0 (index.html)");
        assertBad(
                new HttpCacheResponder("c").entry("", "/", "text/html", HTML).entry("a:80", "/", "text/html", HTML),
                "entry 1 (/): host 'a:80'");
        assertBad(new HttpCacheResponder("c").entry("", "/", "text/html\r\nX: y", HTML), "content type");
        assertBad(
                new HttpCacheResponder("c").entry("", "/big", "text/plain", new byte[HttpCacheResponder.MAX_RESPONSE]),
                "more than 65535");
        assertBad(new HttpCacheResponder("c").entry("", "/", "text/html", HTML).mss(10), "mss must be in 64..9000");
        assertBad(new HttpCacheResponder("c").entry("", "/", "text/html", HTML).ttl(0), "ttl must be in 1..255");
    }

    private static void assertBad(HttpCacheResponder r, String expect) {
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> build(r));
        assertEquals(ErrorSubtype.BAD_BLOCK, e.subtype());
        assertTrue(
                e.getMessage().contains("block 'c' (HttpCacheResponder)")
                        && e.getMessage().contains(expect),
                e.getMessage());
    }
}
