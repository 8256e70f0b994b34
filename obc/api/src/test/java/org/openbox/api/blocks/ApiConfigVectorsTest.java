package org.openbox.api.blocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.openbox.api.match.Match;
import org.openbox.api.match.PayloadPattern;
import org.openbox.api.match.SessionMatch;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.match.MatchField;

/**
 * The block configs in blocks/catalogue/vectors/api-configs.json are exactly what these API
 * calls write (the examples of the builders' documentation, one or more per block the OBI
 * implements); the OBI's tests check and build the same file's blocks
 * (obi/tests/blocks_modify/catalogue_vectors_test.cc), so the two languages agree on them.
 */
class ApiConfigVectorsTest {

    /** Vector description -> the API call that writes its block. */
    private static Map<String, Supplier<ProcessingBlock>> builders() {
        Map<String, Supplier<ProcessingBlock>> b = new LinkedHashMap<>();
        b.put("SessionStore: a whole field and a masked field, as the Java API writes them", () -> new SessionStore(
                        "remember")
                .store(MatchField.IPV4_SRC, "client")
                .store(MatchField.TCP_DST, "port", "0xff00"));
        b.put(
                "SessionClassifier: rules in the record form the Java API writes (field and constant)",
                () -> new SessionClassifier("known")
                        .rule(SessionMatch.field("client", MatchField.IPV4_DST))
                        .rule(SessionMatch.value("port", "0x1f00"))
                        .rule(SessionMatch.value("client", "10.0.0.0%255.0.0.0")));
        b.put("Alert", () -> new Alert("a").alert("SSH from outside", 3).attachPacket(true));
        b.put("BpsRateClassifier", () -> new BpsRateClassifier("rate").rate("1 Mbps", "100 Mbps"));
        b.put("BpsShaper", () -> new BpsShaper("shape", 125_000_000));
        b.put("ContentClassifier", () -> new ContentClassifier("cc").pattern("12/0800", "-"));
        b.put("DecIpTtl", () -> new DecIpTtl("ttl"));
        b.put("DecapsulateMetadata", () -> new DecapsulateMetadata("nsh-out"));
        b.put("Discard", () -> new Discard("drop"));
        b.put(
                "EncapsulateMetadata",
                () -> new EncapsulateMetadata("nsh-in", 42).si(7).keys("app"));
        b.put("FlowTracker", () -> new FlowTracker("flows").timeout(60));
        b.put("FromDevice", () -> new FromDevice("in", "eth0").promisc(true));
        b.put("FromDump", () -> new FromDump("in", "trace.pcap").timing(true));
        b.put("FrontDropQueue", () -> new FrontDropQueue("q", 1000));
        b.put("GzipCompressor", () -> new GzipCompressor("gzip").level(9).minSize(512));
        b.put("GzipDecompressor", () -> new GzipDecompressor("gunzip").maxSize(4096));
        b.put("HeaderClassifier", () -> new HeaderClassifier("fw")
                .rule(Match.of().ipv4Src("10.0.0.0/8").tcpDst(22))
                .rule(Match.of()));
        b.put("HeaderPayloadClassifier", () -> new HeaderPayloadClassifier("ips")
                .rule(Match.of().tcpDst(80), PayloadPattern.regex("(?i)union\\s+select"))
                .rule(Match.of()));
        b.put("HttpCacheResponder", () -> new HttpCacheResponder("cache")
                .entry("www.example.com", "/", "text/html", "<html></html>".getBytes(StandardCharsets.UTF_8))
                .mss(1460));
        b.put("Ipv4AddressTranslator", () -> new Ipv4AddressTranslator("nat")
                .inputSpec("pattern 1.0.0.1 1024-65535 - - 0 1", "discard"));
        b.put("Log", () -> new Log("log", "suspicious packet").severity(2));
        b.put(
                "NetworkDirectionSwap",
                () -> new NetworkDirectionSwap("swap").ethernet(true).ipv4(true).tcp(true));
        b.put(
                "NetworkHeaderFieldsRewriter",
                () -> new NetworkHeaderFieldsRewriter("rw").ipv4Dst("10.0.0.2").tcpDst(8080));
        b.put("PpsRateClassifier", () -> new PpsRateClassifier("rate").rate(1000, 10000));
        b.put("PpsShaper", () -> new PpsShaper("shape", 100_000));
        b.put("ProtocolAnalyzer", () -> new ProtocolAnalyzer("pa").protocols("http", "tcp"));
        b.put("Queue", () -> new Queue("q", 1000));
        b.put("RandomEarlyDetectionQueue", () -> new RandomEarlyDetectionQueue("red", 1000, 50, 500, 0.1)
                .stability(3)
                .gentle(false));
        b.put(
                "ReadMetadata",
                () -> new ReadMetadata("which-app", "app").value("ips").value(3));
        b.put("RegexClassifier", () -> new RegexClassifier("rc").pattern("^GET /admin", "(?i)cmd\\.exe"));
        b.put(
                "RegexMatcher",
                () -> new RegexMatcher("rm").pattern("evil", "worse").matchAll(false));
        b.put("SessionStore: a masked field", () -> new SessionStore("remember")
                .store(MatchField.IPV4_SRC, "client", "255.255.255.0"));
        b.put("StringClassifier", () -> new StringClassifier("words")
                .strings("cmd.exe", "/etc/passwd")
                .caseInsensitive(true)
                .payloadOnly(true));
        b.put("ToDevice", () -> new ToDevice("out", "eth1"));
        b.put("ToDump", () -> new ToDump("out", "out.pcap"));
        b.put("VlanDecapsulate", () -> new VlanDecapsulate("untag"));
        b.put("VlanEncapsulate", () -> new VlanEncapsulate("tag", 100).vlanPcp(3));
        b.put(
                "WriteMetadata",
                () -> new WriteMetadata("mark").value("app", "ips").value("mark", 3));
        b.put("SetTimestamp", () -> new SetTimestamp("stamp").timestamp("1700000000.25"));
        b.put(
                "SetTimestampDelta",
                () -> new SetTimestampDelta("latency").range("NOW").metadataKey("latency"));
        b.put("Store", () -> new Store("keep", "request", 0, 30).packetSize(-1));
        b.put("Restore", () -> new Restore("back", "request").protocol("payload"));
        b.put("BeginTransaction", () -> new BeginTransaction("try", "nat"));
        b.put("CommitTransaction", () -> new CommitTransaction("done", "nat"));
        b.put("RollbackTransaction", () -> new RollbackTransaction("undo", "nat"));
        b.put("HtmlNormalizer", () -> new HtmlNormalizer("html").removeComments(false));
        b.put("JsNormalizer", () -> new JsNormalizer("js").collapseWhitespace(false));
        return b;
    }

    private static JsonNode vectors(ObjectMapper json) throws Exception {
        Path file = Path.of(
                System.getProperty("openbox.root", "../.."), "blocks", "catalogue", "vectors", "api-configs.json");
        return json.readTree(file.toFile());
    }

    @Test
    void theApiWritesEveryVectorsConfig() throws Exception {
        ObjectMapper json = new ObjectMapper();
        Map<String, Supplier<ProcessingBlock>> builders = builders();
        JsonNode vectors = vectors(json);
        assertEquals(builders.size(), vectors.size(), "one API call per vector");
        for (JsonNode v : vectors) {
            String what = v.get("description").asText();
            JsonNode want = v.get("block");
            Supplier<ProcessingBlock> builder = builders.get(what);
            assertNotNull(builder, "an API call for: " + what);
            ProcessingBlock block = builder.get();
            block.check();
            // as on the wire: the API's text read back (an int the API holds as a long is the same text)
            JsonNode got = json.readTree(json.writeValueAsString(block.toBlock()));
            assertEquals(want.get("config"), got.get("config"), what);
            assertEquals(want.get("type"), got.get("type"), what);
            assertEquals(want.get("name"), got.get("name"), what);
        }
    }

    @Test
    void everyBlockTheObiImplementsHasAVector() throws Exception {
        Set<String> covered = new HashSet<>();
        for (JsonNode v : vectors(new ObjectMapper())) {
            covered.add(v.get("block").get("type").asText());
        }
        for (BlockDescriptor d : Catalogue.load().all()) {
            if (d.obi()) {
                assertTrue(covered.contains(d.name()), "api-configs.json has no vector for " + d.name());
            }
        }
    }
}
