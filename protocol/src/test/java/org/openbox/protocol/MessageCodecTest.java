package org.openbox.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;
import org.openbox.protocol.message.AddCustomModuleRequest;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.Hello;
import org.openbox.protocol.message.KeepAlive;
import org.openbox.protocol.message.Message;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.openbox.protocol.message.WriteRequest;

/** Codec behaviour beyond the vectors: encoding details, path types, graphs, error vocabulary. */
class MessageCodecTest {
    private final MessageCodec codec = new MessageCodec();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void encodingPutsTypeFirstAndLeavesOutAbsentFields() throws Exception {
        Hello h = new Hello(5, 9, "1.1.0", Vectors.MAPPER.createObjectNode(), null, null);
        String json = codec.encode(h);
        assertTrue(json.startsWith("{\"type\":\"Hello\""), json);
        JsonNode n = Vectors.MAPPER.readTree(json);
        assertFalse(n.has("source_addr"));
        assertFalse(n.has("source_port"));
        assertEquals(9, n.get("dpid").asLong());
        assertEquals(h, codec.decode(json));
    }

    @Test
    void nullValueOfAWriteIsKept() {
        WriteRequest w = new WriteRequest(1, "fw", "reset_counts", NullNode.getInstance());
        ObjectNode json = codec.toJson(w);
        assertTrue(json.has("value") && json.get("value").isNull(), json.toString());
        assertEquals(w, codec.decode(json.toString()));
    }

    @Test
    void errorMessageUsesSpecNames() {
        ErrorMessage e = new ErrorMessage(3, ErrorType.UNSUPPORTED, ErrorSubtype.UNSUPPORTED_BLOCK, "no Foo", null);
        ObjectNode json = codec.toJson(e);
        assertEquals("Error", json.get("type").asText());
        assertEquals("UNSUPPORTED_BLOCK", json.get("error_subtype").asText());
        assertFalse(json.has("extended_message"));
    }

    @Test
    void pathTypeMustMatchBodyTypeWithAliases() {
        byte[] body = utf8(
                "{\"type\": \"AddCustomModule\", \"xid\": 1, \"module_name\": \"m\", \"module_content\": \"AAEC\"}");
        assertInstanceOf(AddCustomModuleRequest.class, codec.decode("AddCustomModule", body));
        assertInstanceOf(AddCustomModuleRequest.class, codec.decode("AddCustomModuleRequest", body));
        ProtocolException e = assertThrows(ProtocolException.class, () -> codec.decode("KeepAlive", body));
        assertEquals(ErrorSubtype.BAD_TYPE, e.subtype());
        e = assertThrows(ProtocolException.class, () -> codec.decode("NoSuchMessage", body));
        assertEquals(ErrorSubtype.BAD_TYPE, e.subtype());
        assertEquals("AddCustomModuleRequest", codec.decode(body).type());
    }

    @Test
    void invalidUtf8AndNullBodiesAreIllegalArguments() {
        byte[] bad = {'{', '"', 't', '"', ':', (byte) 0xff, '}'};
        assertEquals(
                ErrorSubtype.ILLEGAL_ARGUMENT,
                assertThrows(ProtocolException.class, () -> codec.decode(bad)).subtype());
        assertEquals(
                ErrorSubtype.ILLEGAL_ARGUMENT,
                assertThrows(ProtocolException.class, () -> codec.decode((byte[]) null))
                        .subtype());
    }

    @Test
    void errorSubtypesBelongToTheirTypes() {
        assertEquals(ErrorType.BAD_REQUEST, ErrorSubtype.BAD_HEADER_MATCH.type());
        assertEquals(ErrorType.FORBIDDEN, ErrorSubtype.NO_ACCESS.type());
        assertEquals(ErrorType.UNSUPPORTED, ErrorSubtype.UNSUPPORTED_VERSION.type());
        assertEquals(ErrorType.INTERNAL_ERROR, ErrorSubtype.ADD_MODULE_FAILED.type());
        ProtocolException e = new ProtocolException(ErrorSubtype.NOT_PERMITTED, "x");
        assertEquals(ErrorType.FORBIDDEN, e.type());
    }

    @Test
    void graphRequestDecodesToRecords() {
        String json = "{\"type\": \"SetProcessingGraphRequest\", \"xid\": 8, \"blocks\": ["
                + "{\"type\": \"FromDump\", \"name\": \"in\", \"config\": {\"filename\": \"a.pcap\"}},"
                + "{\"type\": \"Discard\", \"name\": \"d\"}],"
                + "\"connectors\": [{\"src\": \"in\", \"src_port\": 0, \"dst\": \"d\", \"dst_port\": 0}]}";
        Message m = codec.decode(json);
        SetProcessingGraphRequest r = assertInstanceOf(SetProcessingGraphRequest.class, m);
        assertEquals(List.of(new Connector("in", 0, "d", 0)), r.connectors());
        assertEquals("a.pcap", r.blocks().get(0).config().get("filename").asText());
        assertNull(r.blocks().get(1).config());
        assertNull(r.reportBack());
        assertNull(r.requiredModules());
    }

    @Test
    void graphFilesRoundTripAndReportShapeErrors() throws Exception {
        ObjectNode cfg = Vectors.MAPPER.createObjectNode().put("filename", "in.pcap");
        Graph g = new Graph(
                List.of(new Block("FromDump", "in", cfg), new Block("Discard", "d", null)),
                List.of(new Connector("in", 0, "d", 0)));
        assertEquals(g, Graph.fromJson(g.toJson()));
        assertFalse(g.toJson().get("blocks").get(1).has("config"));

        assertEquals(
                ErrorSubtype.BAD_GRAPH,
                assertThrows(ProtocolException.class, () -> Graph.fromJson(Vectors.MAPPER.readTree("{\"blocks\": []}")))
                        .subtype());
        assertEquals(
                ErrorSubtype.BAD_GRAPH,
                assertThrows(ProtocolException.class, () -> Graph.fromJson(Vectors.MAPPER.readTree("[]")))
                        .subtype());
        assertEquals(
                ErrorSubtype.BAD_CONNECTOR,
                assertThrows(
                                ProtocolException.class,
                                () -> Graph.fromJson(Vectors.MAPPER.readTree(
                                        "{\"blocks\": [], \"connectors\": [{\"src\": \"a\"}]}")))
                        .subtype());
        JsonNode badMatch = Vectors.MAPPER.readTree("{\"blocks\": [{\"type\": \"HeaderClassifier\", \"name\": \"h\","
                + " \"config\": {\"match\": [{\"udp_dst\": 53}]}}], \"connectors\": []}");
        ProtocolException e = assertThrows(ProtocolException.class, () -> Graph.fromJson(badMatch));
        assertEquals(ErrorSubtype.BAD_HEADER_MATCH, e.subtype());
        assertTrue(e.getMessage().contains("'h'") && e.getMessage().contains("UDP_DST"), e.getMessage());
    }

    @Test
    void keepAliveRoundTripsThroughBytes() {
        KeepAlive k = new KeepAlive(Long.parseLong("9007199254740991"), Long.MAX_VALUE);
        assertEquals(k, codec.decode(utf8(codec.encode(k))));
    }
}
