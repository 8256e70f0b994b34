package org.openbox.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.openbox.protocol.graph.GraphShape;
import org.openbox.protocol.message.*;

/**
 * Decodes and encodes OpenBox protocol messages (JSON). Decoding validates by hand, in the
 * order of protocol/README.md ("Validation order"), so that the first failure decides the
 * error type and subtype exactly as the OBI's C++ codec does. Encoding writes the spec's
 * snake_case names and leaves absent optional fields out. Thread-safe; create once.
 */
public final class MessageCodec {
    /** Every message name, as it appears in {@code type} and in POST /message/&lt;Type&gt;. */
    public static final List<String> MESSAGE_TYPES = List.of(
            "Hello",
            "KeepAlive",
            "ListCapabilitiesRequest",
            "ListCapabilitiesResponse",
            "SetParametersRequest",
            "SetParametersResponse",
            "GetParametersRequest",
            "GetParametersResponse",
            "GlobalStatsRequest",
            "GlobalStatsResponse",
            "GlobalStatsReset",
            "ReadRequest",
            "ReadResponse",
            "WriteRequest",
            "WriteResponse",
            "SetProcessingGraphRequest",
            "SetProcessingGraphResponse",
            "BarrierRequest",
            "Error",
            "Alert",
            "Log",
            "AddCustomModuleRequest",
            "AddCustomModuleResponse",
            "RemoveCustomModuleRequest",
            "RemoveCustomModuleResponse");
    /** The spec's short names (4.2.11, 4.2.12), accepted on input. */
    public static final Map<String, String> TYPE_ALIASES = Map.of(
            "AddCustomModule", "AddCustomModuleRequest",
            "RemoveCustomModule", "RemoveCustomModuleRequest");

    private static final Set<String> COMPLEX_MATCH = Set.of("full", "lists", "ranges", "basic");
    private static final BigInteger ONE_BIG = BigInteger.ONE;

    private final ObjectMapper mapper;
    private final Map<String, Function<Fields, Message>> decoders = new LinkedHashMap<>();

    public MessageCodec() {
        mapper = new ObjectMapper()
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .setSerializationInclusion(JsonInclude.Include.NON_NULL);
        register();
    }

    /** The mapper used for encoding (snake_case, nulls left out). */
    public ObjectMapper mapper() {
        return mapper;
    }

    /** The canonical message name for a type or alias, or null when unknown. */
    public static String canonicalType(String type) {
        if (type == null) {
            return null;
        }
        if (MESSAGE_TYPES.contains(type)) {
            return type;
        }
        return TYPE_ALIASES.get(type);
    }

    public Message decode(String json) {
        return decode(null, json == null ? null : json.getBytes(StandardCharsets.UTF_8));
    }

    public Message decode(byte[] json) {
        return decode(null, json);
    }

    /**
     * Decodes a body posted to /message/{@code pathType}; a null pathType skips the path check.
     * A body type that differs from the path type (aliases resolved) is BAD_TYPE.
     */
    public Message decode(String pathType, byte[] json) {
        JsonNode root;
        try {
            root = json == null ? null : mapper.readTree(json);
        } catch (IOException e) {
            throw new ProtocolException(ErrorSubtype.ILLEGAL_ARGUMENT, "body is not valid JSON: " + firstLine(e));
        }
        return decodeTree(pathType, root);
    }

    /** Decodes an already parsed body (checks 1-11). */
    public Message decodeTree(String pathType, JsonNode root) {
        // 1: an object
        if (root == null || !root.isObject()) {
            throw new ProtocolException(ErrorSubtype.ILLEGAL_ARGUMENT, "body must be a JSON object");
        }
        // 2: a known type, matching the path
        JsonNode typeNode = root.get("type");
        if (typeNode == null || !typeNode.isTextual()) {
            throw new ProtocolException(ErrorSubtype.BAD_TYPE, "'type' must be a string naming a message");
        }
        String type = canonicalType(typeNode.asText());
        if (type == null) {
            throw new ProtocolException(ErrorSubtype.BAD_TYPE, "unknown message type '" + typeNode.asText() + "'");
        }
        if (pathType != null && !type.equals(canonicalType(pathType))) {
            throw new ProtocolException(
                    ErrorSubtype.BAD_TYPE,
                    "message of type '" + typeNode.asText() + "' posted to /message/" + pathType);
        }
        // 3: xid
        Fields f = new Fields(type, root);
        if (Fields.integer(root.get("xid"), Fields.XID_LIMIT) < 0) {
            throw new ProtocolException(
                    ErrorSubtype.ILLEGAL_ARGUMENT,
                    type + ".xid: must be an integer in [0, 2^53), got " + root.get("xid"));
        }
        // 4-10 are message specific and run first inside each decoder; 11 follows.
        return decoders.get(type).apply(f);
    }

    /** The JSON text of a message. */
    public String encode(Message m) {
        try {
            return mapper.writeValueAsString(toJson(m));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + m.type(), e);
        }
    }

    /**
     * The JSON text of a message as UTF-8 bytes, the same text as {@link #encode}, written
     * straight from the message (no intermediate tree and no String): what a large
     * SetProcessingGraphRequest is sent as.
     */
    public byte[] encodeBytes(Message m) {
        byte[] fields;
        try {
            fields = mapper.writeValueAsBytes(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + m.type(), e);
        }
        // {"type":"T" then the record's own object, whose opening brace is dropped
        byte[] head = ("{\"type\":" + quoted(m.type())).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (fields.length < 2 || fields[0] != '{') {
            throw new IllegalStateException("cannot encode " + m.type() + ": not a JSON object");
        }
        boolean empty = fields[1] == '}';
        byte[] out = new byte[head.length + fields.length - (empty ? 1 : 0)];
        System.arraycopy(head, 0, out, 0, head.length);
        if (empty) {
            out[head.length] = '}';
        } else {
            out[head.length] = ',';
            System.arraycopy(fields, 1, out, head.length + 1, fields.length - 1);
        }
        return out;
    }

    private String quoted(String text) {
        try {
            return mapper.writeValueAsString(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The JSON object of a message: "type" first, then its fields in snake_case. */
    public ObjectNode toJson(Message m) {
        ObjectNode out = mapper.createObjectNode();
        out.put("type", m.type());
        out.setAll((ObjectNode) mapper.valueToTree(m));
        return out;
    }

    private static String firstLine(Exception e) {
        String msg = String.valueOf(e.getMessage());
        int nl = msg.indexOf('\n');
        return nl < 0 ? msg : msg.substring(0, nl);
    }

    private void register() {
        BigInteger l63 = Fields.LONG_LIMIT;
        decoders.put("Hello", f -> {
            checkVersion(f);
            long dpid = f.reqLong("dpid", l63);
            String version = f.reqString("version");
            ObjectNode caps = f.reqObject("capabilities");
            checkCapabilities(f, caps);
            return new Hello(
                    xid(f), dpid, version, caps, f.optString("source_addr"), f.optIntInRange("source_port", 1, 65535));
        });
        decoders.put("KeepAlive", f -> new KeepAlive(xid(f), f.reqLong("dpid", l63), f.optObject("metrics")));
        decoders.put("ListCapabilitiesRequest", f -> new ListCapabilitiesRequest(xid(f)));
        decoders.put("ListCapabilitiesResponse", f -> {
            ObjectNode caps = f.reqObject("capabilities");
            checkCapabilities(f, caps);
            return new ListCapabilitiesResponse(xid(f), caps);
        });
        decoders.put("SetParametersRequest", f -> new SetParametersRequest(xid(f), f.reqObject("parameters")));
        decoders.put("SetParametersResponse", f -> new SetParametersResponse(xid(f)));
        decoders.put("GetParametersRequest", f -> new GetParametersRequest(xid(f), f.optStringList("parameters")));
        decoders.put("GetParametersResponse", f -> new GetParametersResponse(xid(f), f.reqObject("parameters")));
        decoders.put("GlobalStatsRequest", f -> new GlobalStatsRequest(xid(f)));
        decoders.put("GlobalStatsResponse", f -> new GlobalStatsResponse(xid(f), f.reqObject("stats")));
        decoders.put("GlobalStatsReset", f -> new GlobalStatsReset(xid(f)));
        decoders.put("ReadRequest", f -> new ReadRequest(xid(f), f.reqString("block_id"), f.reqString("read_handle")));
        decoders.put(
                "ReadResponse",
                f -> new ReadResponse(
                        xid(f), f.reqString("block_id"), f.reqString("read_handle"), f.reqValue("result")));
        decoders.put(
                "WriteRequest",
                f -> new WriteRequest(
                        xid(f), f.reqString("block_id"), f.reqString("write_handle"), f.reqValue("value")));
        decoders.put("WriteResponse", f -> {
            String block = f.reqString("block_id");
            // the spec names this field read_handle; write_handle wins when both are present
            String handle = f.has("write_handle") || !f.has("read_handle")
                    ? f.reqString("write_handle")
                    : f.reqString("read_handle");
            return new WriteResponse(xid(f), block, handle);
        });
        decoders.put("SetProcessingGraphRequest", f -> {
            GraphShape shape = GraphShape.check(f.node().get("blocks"), f.node().get("connectors"));
            List<String> modules = f.optStringList("required_modules");
            f.checkArray("blocks", true);
            f.checkArray("connectors", true);
            return new SetProcessingGraphRequest(
                    xid(f), modules, shape.blocks(), shape.connectors(), f.optBoolean("report_back"));
        });
        decoders.put("SetProcessingGraphResponse", f -> {
            GraphShape shape = GraphShape.check(f.node().get("blocks"), f.node().get("connectors"));
            f.checkArray("blocks", false);
            f.checkArray("connectors", false);
            return new SetProcessingGraphResponse(xid(f), shape.blocks(), shape.connectors());
        });
        decoders.put("BarrierRequest", f -> new BarrierRequest(xid(f)));
        decoders.put("Error", this::decodeError);
        decoders.put("Alert", f -> {
            long origin = f.reqLong("origin_dpid", l63);
            List<AlertEntry> entries = new ArrayList<>();
            for (Fields e : f.reqObjectArray("messages")) {
                entries.add(new AlertEntry(
                        e.reqLong("id", l63),
                        e.reqTimestamp("timestamp"),
                        e.reqString("message"),
                        e.reqIntInRange("severity", 1, 5),
                        e.optString("packet"),
                        e.optString("origin_block"),
                        e.optString("app_id"),
                        e.optTimestamp("packet_timestamp"),
                        packetHeaders(e)));
            }
            return new Alert(xid(f), origin, entries);
        });
        decoders.put("Log", f -> {
            long origin = f.reqLong("origin_dpid", l63);
            List<LogEntry> entries = new ArrayList<>();
            for (Fields e : f.reqObjectArray("messages")) {
                entries.add(new LogEntry(
                        e.reqLong("id", l63),
                        e.reqTimestamp("timestamp"),
                        e.reqString("message"),
                        e.reqIntInRange("severity", 1, 5),
                        e.optString("packet"),
                        e.optString("origin_block")));
            }
            return new Log(xid(f), origin, entries);
        });
        decoders.put("AddCustomModuleRequest", f -> {
            JsonNode content = f.node().get("module_content");
            if (content != null && content.isTextual() && !Base64Text.isValid(content.asText())) {
                throw new ProtocolException(
                        ErrorSubtype.BAD_FILE,
                        "AddCustomModuleRequest.module_content: not valid base64 (RFC 4648, padded, no whitespace)");
            }
            String name = f.reqString("module_name");
            String body = f.reqString("module_content");
            String contentType = f.optString("content_type");
            String encoding = f.optString("content_transfer_encoding");
            if (encoding != null && !encoding.equals("base64")) {
                throw f.illegal("content_transfer_encoding", "must be \"base64\", got \"" + encoding + "\"");
            }
            JsonNode translation = f.optValue("translation");
            return new AddCustomModuleRequest(
                    xid(f),
                    name,
                    body,
                    contentType,
                    encoding,
                    translation,
                    f.optString("module_version"),
                    f.optString("signature"),
                    f.optString("key_id"));
        });
        decoders.put("AddCustomModuleResponse", f -> new AddCustomModuleResponse(xid(f)));
        decoders.put(
                "RemoveCustomModuleRequest", f -> new RemoveCustomModuleRequest(xid(f), f.reqString("module_name")));
        decoders.put("RemoveCustomModuleResponse", f -> new RemoveCustomModuleResponse(xid(f)));
    }

    private static PacketHeaders packetHeaders(Fields e) {
        return new PacketHeaders(
                e.optString("eth_src"),
                e.optString("eth_dst"),
                e.optIntInRange("eth_type", 0, 65535),
                e.optString("src_ip"),
                e.optString("dst_ip"),
                e.optIntInRange("ip_proto", 0, 255),
                e.optIntInRange("src_port", 0, 65535),
                e.optIntInRange("dst_port", 0, 65535),
                e.optIntInRange("icmp_type", 0, 255),
                e.optIntInRange("icmp_code", 0, 255));
    }

    private static long xid(Fields f) {
        return f.node().get("xid").longValue();
    }

    /** Checks 4 and 5: applied to a present string; anything else falls to check 11. */
    private static void checkVersion(Fields f) {
        JsonNode v = f.node().get("version");
        if (v == null || !v.isTextual()) {
            return;
        }
        String s = v.asText();
        if (!s.matches("[0-9]+\\.[0-9]+(\\.[0-9]+)?")) {
            throw new ProtocolException(
                    ErrorSubtype.BAD_VERSION, "Hello.version: '" + s + "' is not of the form MAJOR.MINOR[.PATCH]");
        }
        BigInteger major = new BigInteger(s.substring(0, s.indexOf('.')));
        if (!major.equals(ONE_BIG)) {
            throw new ProtocolException(
                    ErrorSubtype.UNSUPPORTED_VERSION,
                    "Hello.version: OpenBox " + s + " is not supported (major version 1 only)");
        }
    }

    private static void checkCapabilities(Fields f, ObjectNode caps) {
        JsonNode cm = caps.get("complex_match");
        if (cm == null) {
            return;
        }
        if (!cm.isArray()
                || cm.size() != 1
                || !cm.get(0).isTextual()
                || !COMPLEX_MATCH.contains(cm.get(0).asText())) {
            throw f.illegal(
                    "capabilities.complex_match",
                    "must be an array with exactly one of \"full\", \"lists\", \"ranges\", \"basic\", got " + cm);
        }
    }

    private Message decodeError(Fields f) {
        String t = f.reqString("error_type");
        String s = f.reqString("error_subtype");
        ErrorType type;
        ErrorSubtype subtype;
        try {
            type = ErrorType.valueOf(t);
        } catch (IllegalArgumentException e) {
            throw f.illegal("error_type", "unknown error type '" + t + "'");
        }
        try {
            subtype = ErrorSubtype.valueOf(s);
        } catch (IllegalArgumentException e) {
            throw f.illegal("error_subtype", "unknown error subtype '" + s + "'");
        }
        if (subtype.type() != type) {
            throw f.illegal("error_subtype", s + " belongs to " + subtype.type() + ", not " + t);
        }
        return new ErrorMessage(xid(f), type, subtype, f.optString("message"), f.optString("extended_message"));
    }
}
