package org.openbox.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;

class CatalogueTest {

    static final ObjectMapper MAPPER = new ObjectMapper();
    static final Catalogue CATALOGUE = Catalogue.load();

    static Block block(String type, String config) {
        try {
            return new Block(type, "b1", config == null ? null : (ObjectNode) MAPPER.readTree(config));
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    static ProtocolException rejects(String type, String config) {
        return assertThrows(ProtocolException.class, () -> CATALOGUE.validate(block(type, config)));
    }

    @Test
    void classpathCatalogueEqualsSourceDirectory() {
        Catalogue fromDir = Catalogue.load(Path.of(System.getProperty("openbox.root", "../.."), "blocks", "catalogue"));
        assertEquals(
                fromDir.all().stream().map(BlockDescriptor::name).toList(),
                CATALOGUE.all().stream().map(BlockDescriptor::name).toList());
        assertEquals(List.copyOf(fromDir.all()), List.copyOf(CATALOGUE.all()));
    }

    @Test
    void classesAndPortCounts() {
        assertEquals(BlockClass.TERMINAL, d("Discard").blockClass());
        assertEquals(BlockClass.SHAPER, d("Queue").blockClass());
        assertEquals(BlockClass.STATIC, d("Alert").blockClass());
        assertEquals(0, d("Discard").outputCount(null));
        assertEquals(0, d("FromDump").inputCount(null));
        assertEquals(2, d("DecIpTtl").outputCount(null));
        assertEquals(2, d("RegexMatcher").outputCount(null));
        assertEquals(3, d("HeaderClassifier").outputCount(cfg("{\"match\":[{},{},{}]}")));
        assertEquals(3, d("SessionClassifier").outputCount(cfg("{\"match\":[{},{}]}")));
        assertEquals(1, d("SessionClassifier").outputCount(cfg("{}")));
        assertEquals(4, d("BpsRateClassifier").outputCount(cfg("{\"rate\":[\"1 kbps\",\"2 kbps\",\"3 kbps\"]}")));
        assertEquals(3, d("ProtocolAnalyzer").outputCount(cfg("{\"protocols\":[\"http\",\"tcp\"]}")));
        ObjectNode nat =
                cfg("{\"input_spec\":[\"pattern 1.0.0.1 1024-65535 - - 0 1\",\"drop\",\"pass 4\",\"keep 2 3\"]}");
        assertEquals(4, d("Ipv4AddressTranslator").inputCount(nat));
        assertEquals(5, d("Ipv4AddressTranslator").outputCount(nat));
        assertEquals(1, d("Ipv4AddressTranslator").outputCount(cfg("{\"input_spec\":[\"discard\"]}")));
    }

    @Test
    void indexedHandlesResolve() {
        BlockDescriptor pa = d("ProtocolAnalyzer");
        assertTrue(pa.hasReadHandle("count_3"));
        assertTrue(pa.hasReadHandle("byte_rate_0"));
        assertFalse(pa.hasReadHandle("count_"));
        assertFalse(pa.hasReadHandle("count_x"));
        assertFalse(pa.hasReadHandle("count"));
        assertTrue(pa.hasWriteHandle("reset_12"));
        assertTrue(pa.hasWriteHandle("reset_all_counts"));
        assertTrue(d("HeaderClassifier").hasReadHandle("count"));
        assertFalse(d("HeaderClassifier").hasReadHandle("count_1"));
        assertTrue(d("RegexMatcher").hasReadHandle("payload_only"));
        assertFalse(d("RegexClassifier").hasWriteHandle("match_all"));
    }

    @Test
    void defaultsHaveTheirArgumentsType() {
        for (BlockDescriptor desc : CATALOGUE.all()) {
            for (ArgDescriptor a : desc.config()) {
                if (a.defaultValue() != null) {
                    ObjectNode c = MAPPER.createObjectNode();
                    desc.config().stream().filter(ArgDescriptor::required).forEach(r -> c.set(r.name(), sample(r)));
                    c.set(a.name(), a.defaultValue());
                    CATALOGUE.validate(new Block(desc.name(), "x", c));
                }
            }
        }
    }

    private static com.fasterxml.jackson.databind.JsonNode sample(ArgDescriptor a) {
        String json =
                switch (a.type()) {
                    case "string" -> "\"x\"";
                    case "integer", "number" -> "1";
                    case "object" -> "{}";
                    case "field_map" -> "{\"ipv4_src\": \"k\"}";
                    case "alert[]" -> "[{\"message\": \"m\"}]";
                    default -> "[]";
                };
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void acceptsValidConfigs() {
        CATALOGUE.validate(block("Discard", null));
        CATALOGUE.validate(block("FromDump", "{\"filename\":\"in.pcap\",\"timing\":false}"));
        CATALOGUE.validate(
                block(
                        "HeaderClassifier",
                        "{\"match\":[{\"ETH_TYPE\":\"0x0800\",\"ipv4_src\":\"10.0.0.0/8\",\"IP_PROTO\":6,\"tcp_dst\":80},{}]}"));
        CATALOGUE.validate(
                block(
                        "HeaderPayloadClassifier",
                        "{\"match\":[{\"type\":\"HeaderPayloadMatch\","
                                + "\"header_match\":{\"eth_type\":2048},\"payload_match\":[{\"pattern\":\"evil\",\"is_regex\":true}]}]}"));
        CATALOGUE.validate(block(
                "Alert", "{\"alerts\":[{\"message\":\"m\",\"severity\":5,\"app_id\":\"fw\"}],\"packet_size\":-1}"));
        CATALOGUE.validate(block(
                "SessionStore",
                "{\"fields\":{\"IPV4_SRC\":{\"key\":\"c\",\"mask\":\"255.255.255.0\"},\"tcp_src\":\"p\"}}"));
        CATALOGUE.validate(
                block("SessionClassifier", "{\"match\":[{\"key\":\"c\",\"is_field\":true,\"value\":\"IPV4_DST\"}]}"));
        CATALOGUE.validate(block("ReadMetadata", "{\"key\":\"app\",\"values\":[\"ips\",3]}"));
    }

    @Test
    void unknownTypeIsUnsupportedBlock() {
        ProtocolException e = rejects("Sorter", "{}");
        assertEquals(ErrorSubtype.UNSUPPORTED_BLOCK, e.subtype());
        assertTrue(e.getMessage().contains("Sorter") && e.getMessage().contains("b1"), e.getMessage());
    }

    @Test
    void badArgumentsAreBadBlockNamingBlockAndArgument() {
        assertBad(rejects("FromDevice", "{\"devname\":\"eth0\",\"speed\":1}"), ErrorSubtype.BAD_BLOCK, "speed");
        assertBad(rejects("FromDevice", "{}"), ErrorSubtype.BAD_BLOCK, "devname");
        assertBad(rejects("FromDevice", null), ErrorSubtype.BAD_BLOCK, "devname");
        assertBad(rejects("FromDevice", "{\"devname\":3}"), ErrorSubtype.BAD_BLOCK, "devname");
        assertBad(rejects("FromDevice", "{\"devname\":\"e\",\"promisc\":\"yes\"}"), ErrorSubtype.BAD_BLOCK, "promisc");
        assertBad(rejects("Queue", "{\"capacity\":1.5}"), ErrorSubtype.BAD_BLOCK, "capacity");
        assertBad(rejects("Queue", "{\"capacity\":null}"), ErrorSubtype.BAD_BLOCK, "capacity");
        assertBad(rejects("RegexMatcher", "{\"pattern\":\"a\"}"), ErrorSubtype.BAD_BLOCK, "pattern");
        assertBad(rejects("RegexMatcher", "{\"pattern\":[\"a\",2]}"), ErrorSubtype.BAD_BLOCK, "pattern[1]");
        assertBad(
                rejects("Alert", "{\"alerts\":[{\"message\":\"m\",\"severity\":9}]}"),
                ErrorSubtype.BAD_BLOCK,
                "severity");
        assertBad(rejects("Alert", "{\"alerts\":[{\"severity\":1}]}"), ErrorSubtype.BAD_BLOCK, "message");
        assertBad(
                rejects("SessionStore", "{\"fields\":{\"no_such_field\":\"k\"}}"),
                ErrorSubtype.BAD_BLOCK,
                "no_such_field");
        assertBad(rejects("SessionClassifier", "{\"match\":[{\"key\":\"k\"}]}"), ErrorSubtype.BAD_BLOCK, "value");
    }

    @Test
    void matchesAreParsed() {
        assertBad(
                rejects("HeaderClassifier", "{\"match\":[{\"eth_type\":2048},{\"tcp_dst\":80}]}"),
                ErrorSubtype.BAD_HEADER_MATCH,
                "match[1]");
        assertBad(
                rejects("HeaderClassifier", "{\"match\":[{\"bogus_field\":1}]}"),
                ErrorSubtype.BAD_HEADER_MATCH,
                "match[0]");
        assertBad(
                rejects("HeaderClassifier", "{\"match\":[{\"eth_type\":\"0x10000\"}]}"),
                ErrorSubtype.BAD_HEADER_MATCH,
                "b1");
        assertBad(
                rejects("HeaderPayloadClassifier", "{\"match\":[{\"header_match\":{\"ipv4_dst\":\"1.2.3.4\"}}]}"),
                ErrorSubtype.BAD_HEADER_MATCH,
                "header_match");
        assertBad(
                rejects("HeaderPayloadClassifier", "{\"match\":[{\"payload_match\":[{\"pattern\":1}]}]}"),
                ErrorSubtype.BAD_PAYLOAD_MATCH,
                "payload_match[0]");
        assertBad(
                rejects(
                        "HeaderPayloadClassifier",
                        "{\"match\":[{\"payload_match\":[{\"pattern\":\"a\",\"from\":5,\"to\":2}]}]}"),
                ErrorSubtype.BAD_PAYLOAD_MATCH,
                "from");
    }

    @Test
    void aMatchFoundValidOnceIsStillCheckedByValue() throws IOException {
        Catalogue c = Catalogue.load();
        Block ok = block("HeaderClassifier", "{\"match\":[{\"eth_type\":2048,\"ipv4_src\":\"10.0.0.0/8\"}]}");
        c.validate(ok);
        // the same block's match edited in place after it passed: the check sees the new value
        ((ObjectNode) ok.config().get("match").get(0)).put("ipv4_src", "10.0.0.300");
        ProtocolException e = assertThrows(ProtocolException.class, () -> c.validate(ok));
        assertBad(e, ErrorSubtype.BAD_HEADER_MATCH, "match[0]");
        // an equal match in another block passes; a part of it alone (no ETH_TYPE) does not
        c.validate(block("HeaderClassifier", "{\"match\":[{\"eth_type\":2048,\"ipv4_src\":\"10.0.0.0/8\"}]}"));
        assertBad(
                assertThrows(
                        ProtocolException.class,
                        () -> c.validate(block(
                                "HeaderPayloadClassifier",
                                "{\"match\":[{\"header_match\":{\"ipv4_src\":\"10.0.0.0/8\"}}]}"))),
                ErrorSubtype.BAD_HEADER_MATCH,
                "header_match");
    }

    private static void assertBad(ProtocolException e, ErrorSubtype subtype, String mention) {
        assertEquals(subtype, e.subtype(), e.getMessage());
        assertTrue(e.getMessage().contains(mention), "message should name " + mention + ": " + e.getMessage());
        assertTrue(e.getMessage().contains("'b1'"), "message should name the block: " + e.getMessage());
    }

    @Test
    void customDescriptorsExtendTheCatalogue() throws IOException {
        BlockDescriptor custom =
                Catalogue.parse(MAPPER.readTree("{\"name\":\"Sampler\",\"class\":\"static\",\"spec\":\"extension\","
                        + "\"required\":false,\"description\":\"d\",\"config\":[{\"name\":\"one_in\",\"type\":\"integer\",\"required\":true}],"
                        + "\"read_handles\":[],\"write_handles\":[],\"inputs\":1,\"outputs\":1}"));
        Catalogue c = CATALOGUE.with(custom);
        c.validate(new Block("Sampler", "s", cfg("{\"one_in\":10}")));
        assertEquals(CATALOGUE.all().size() + 1, c.all().size());
        assertTrue(CATALOGUE.find("Sampler").isEmpty());
        assertThrows(
                IllegalArgumentException.class,
                () -> Catalogue.parse(MAPPER.readTree("{\"name\":\"X\",\"class\":\"nope\"}")));
    }

    static BlockDescriptor d(String name) {
        return CATALOGUE.find(name).orElseThrow();
    }

    static ObjectNode cfg(String json) {
        try {
            return (ObjectNode) MAPPER.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
