package org.openbox.apps.webcache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.AppSettings;
import org.openbox.api.Application;
import org.openbox.api.GraphBuilder;
import org.openbox.api.InvalidGraphException;
import org.openbox.api.ProcessingGraph;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HttpCacheResponder;
import org.openbox.api.blocks.ToDevice;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;

class WebCacheAppTest {

    private static final Catalogue CATALOGUE = Catalogue.load();

    private static WebCacheConfig config(Path dir, String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return WebCacheConfig.from(new AppSettings(p, dir, "test"));
    }

    static Block target(ProcessingGraph g, String src, int port) {
        Connector c = g.connectors().stream()
                .filter(k -> k.src().equals(src) && k.srcPort() == port)
                .findFirst()
                .orElseThrow(() -> new AssertionError("output " + port + " of " + src + " is not connected"));
        return g.block(c.dst()).orElseThrow();
    }

    @Test
    void isFoundByServiceLoader() {
        Application app = ServiceLoader.load(Application.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(a -> a.name().equals("webcache"))
                .findFirst()
                .orElseThrow();
        assertTrue(app instanceof WebCacheApp);
    }

    @Test
    void defaultGraphSendsPort80ThroughTheResponder() {
        ProcessingGraph g =
                new WebCacheApp(WebCacheConfig.defaults()).statements().get(0).graph();
        JsonNode rows = g.block(WebCacheGraph.CLASSIFIER).orElseThrow().config().get("match");
        assertEquals(2, rows.size());
        assertEquals(80, rows.get(0).get("header_match").get("TCP_DST").asInt());
        assertFalse(rows.get(0).get("header_match").has("IPV4_DST"));
        JsonNode get = rows.get(0).get("payload_match").get(0);
        assertEquals("GET ", get.get("pattern").asText(), "only GET requests reach the responder");
        assertFalse(get.get("is_regex").asBoolean());
        assertEquals(0, get.get("from").asInt());
        assertEquals(0, get.get("to").asInt());
        assertTrue(rows.get(1).get("header_match").isEmpty());
        assertTrue(rows.get(1).get("payload_match").isEmpty());
        Block cache = target(g, WebCacheGraph.CLASSIFIER, 0);
        assertEquals("HttpCacheResponder", cache.type());
        assertEquals("out", target(g, WebCacheGraph.CLASSIFIER, 1).name());
        Block back = target(g, WebCacheGraph.RESPONDER, 0);
        assertEquals("back", back.name());
        assertEquals("in", back.config().get("devname").asText(), "responses go back out of the input device");
        assertEquals("out", target(g, WebCacheGraph.RESPONDER, 1).name());
        JsonNode entry = cache.config().get("entries").get(0);
        assertEquals("/cached.html", entry.get("path").asText());
        assertFalse(entry.has("host"), "no site configured: any host");
        assertArrayEquals(
                WebCacheConfig.BUILT_IN.body(),
                Base64.getDecoder().decode(entry.get("body").asText()));
    }

    @Test
    void sitesAddressesAndObjectsComeFromTheConfig(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("logo.png"), "PNG");
        Files.createDirectories(dir.resolve("www/css"));
        Files.writeString(dir.resolve("www/index.html"), "<html>hi</html>");
        Files.writeString(dir.resolve("www/css/site.css"), "body{}");
        WebCacheConfig cfg = config(
                dir,
                "sites",
                "www.example.com, Example.com",
                "sites.addresses",
                "10.0.2.10, 10.0.3.0/24",
                "objects",
                "/img/logo.png=logo.png",
                "objects.dir",
                "www",
                "device.back",
                "lan",
                "http.port",
                "8080");
        assertEquals(3, cfg.objects().size());
        List<CacheEntry> entries = cfg.entries();
        assertEquals(6, entries.size(), "every object for each of the two sites");
        assertEquals("example.com", entries.get(3).host(), "host names compare case-insensitively");
        assertEquals(
                List.of("/img/logo.png", "/css/site.css", "/index.html"),
                entries.subList(0, 3).stream().map(CacheEntry::path).toList());
        assertEquals(
                List.of("image/png", "text/css", "text/html"),
                entries.subList(0, 3).stream().map(CacheEntry::contentType).toList());

        ProcessingGraph g = WebCacheGraph.build(cfg, CATALOGUE);
        JsonNode rows = g.block(WebCacheGraph.CLASSIFIER).orElseThrow().config().get("match");
        assertEquals(3, rows.size());
        assertEquals(
                "10.0.2.10", rows.get(0).get("header_match").get("IPV4_DST").asText());
        assertEquals(
                "10.0.3.0/24", rows.get(1).get("header_match").get("IPV4_DST").asText());
        assertEquals(8080, rows.get(1).get("header_match").get("TCP_DST").asInt());
        assertEquals(
                WebCacheGraph.RESPONDER, target(g, WebCacheGraph.CLASSIFIER, 0).name());
        assertEquals(
                WebCacheGraph.RESPONDER, target(g, WebCacheGraph.CLASSIFIER, 1).name());
        assertEquals("out", target(g, WebCacheGraph.CLASSIFIER, 2).name());
        assertEquals(
                "lan",
                target(g, WebCacheGraph.RESPONDER, 0).config().get("devname").asText());
        JsonNode e = g.block(WebCacheGraph.RESPONDER)
                .orElseThrow()
                .config()
                .get("entries")
                .get(2);
        assertEquals("www.example.com", e.get("host").asText());
        assertEquals(
                "<html>hi</html>",
                new String(Base64.getDecoder().decode(e.get("body").asText()), StandardCharsets.UTF_8));
    }

    @Test
    void backDeviceEqualToOutputSharesTheToDevice() {
        WebCacheConfig cfg = config(Path.of(""), "device.back", "out");
        ProcessingGraph g = WebCacheGraph.build(cfg, CATALOGUE);
        assertEquals("out", target(g, WebCacheGraph.RESPONDER, 0).name());
        assertEquals(
                1, g.blocks().stream().filter(b -> b.type().equals("ToDevice")).count());
    }

    @Test
    void configErrorsNameTheKey(@TempDir Path dir) {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> config(dir, "sites.addresses", "www.example.com"));
        assertTrue(e.getMessage().contains("sites.addresses"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> config(dir, "objects", "/a.html"));
        assertThrows(IllegalArgumentException.class, () -> config(dir, "objects.dir", "missing"));
        assertThrows(IllegalArgumentException.class, () -> config(dir, "mss", "10"));
        assertThrows(IllegalArgumentException.class, () -> config(dir, "site", "x"));
    }

    @Test
    void responderChecksItsEntries() {
        byte[] big = new byte[CacheEntry.MAX_RESPONSE];
        HttpCacheResponder tooBig = new CacheEntry("", "/big", "text/plain", big).addTo(new HttpCacheResponder("c"));
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> buildAround(tooBig));
        assertEquals(ErrorSubtype.BAD_BLOCK, e.subtype());
        assertTrue(e.getMessage().contains("/big"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new CacheEntry("", "index.html", "text/html", new byte[0]));
        HttpCacheResponder ok = new CacheEntry("Example.COM", "/a", "text/plain", new byte[1])
                .addTo(new HttpCacheResponder("c").ttl(32));
        assertEquals(
                "example.com", ok.config().get("entries").get(0).get("host").asText());
        assertEquals(
                List.of("in", "c", "out"),
                buildAround(ok).blocks().stream().map(Block::name).toList());
    }

    private static ProcessingGraph buildAround(HttpCacheResponder r) {
        return new GraphBuilder(CATALOGUE)
                .connect(new FromDevice("in", "in"), r)
                .connect(r, 1, new ToDevice("out", "out"))
                .build();
    }

    @Test
    void responseHeadIsTheBlocksAndCountsInTheSizeLimit() {
        CacheEntry e = new CacheEntry("", "/a", "text/plain", "hello".getBytes(StandardCharsets.US_ASCII));
        assertEquals(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n"
                        + "X-Cache: HIT\r\n\r\n",
                e.responseHead());
        assertEquals(e.responseHead().length() + 5, e.responseSize());
    }
}
