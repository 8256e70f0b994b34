package org.openbox.catalogue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;

/**
 * The generic config check shared in spirit with the OBI's check_config: unknown type,
 * unknown or missing argument, wrong JSON type, and the structured kinds of README.md.
 */
final class ConfigValidator {

    // Header matches already found valid, by value: a graph is checked when an application
    // builds it, again when the merge reads it, and every reload brings mostly the same
    // rules, so each distinct match is parsed once. Bounded: emptied when it fills.
    private static final int VALID_MATCHES_MAX = 1 << 16;
    private final Map<JsonNode, Boolean> validMatches = new ConcurrentHashMap<>();

    void validate(Catalogue catalogue, Block b) {
        BlockDescriptor d = catalogue
                .find(b.type())
                .orElseThrow(() -> new ProtocolException(
                        ErrorSubtype.UNSUPPORTED_BLOCK,
                        "block '" + b.name() + "': unsupported block type '" + b.type() + "'"));
        ObjectNode config = b.config();
        if (config != null) {
            Iterator<String> names = config.fieldNames();
            while (names.hasNext()) {
                String n = names.next();
                if (d.arg(n).isEmpty()) {
                    throw bad(blockWhere(b, d) + ": unknown config argument '" + n + "'");
                }
            }
        }
        for (ArgDescriptor a : d.config()) {
            JsonNode v = config == null ? null : config.get(a.name());
            if (v == null) {
                if (a.required()) {
                    throw bad(blockWhere(b, d) + ": missing required config argument '" + a.name() + "'");
                }
                continue;
            }
            checkValue(new Where(b, d, a.name()), a.argType(), v);
        }
    }

    private static String blockWhere(Block b, BlockDescriptor d) {
        return "block '" + b.name() + "' (" + d.name() + ")";
    }

    /** Where a value sits, spelt out only for an error message (valid graphs never need it). */
    private record Where(Block block, BlockDescriptor descriptor, String arg) {
        String at(int index) {
            String w = blockWhere(block, descriptor) + ": config argument " + arg;
            return index < 0 ? w : w + "[" + index + "]";
        }
    }

    private void checkValue(Where where, ArgType type, JsonNode v) {
        if (type.array()) {
            if (!v.isArray()) {
                throw bad(where.at(-1) + " must be an array of " + type.kind().wireName() + ", got " + describe(v));
            }
            for (int i = 0; i < v.size(); i++) {
                checkScalar(where, i, type.kind(), v.get(i));
            }
        } else {
            checkScalar(where, -1, type.kind(), v);
        }
    }

    private void checkScalar(Where where, int index, ArgType.Kind kind, JsonNode v) {
        boolean ok =
                switch (kind) {
                    case STRING -> v.isTextual();
                    case BOOL -> v.isBoolean();
                    case INTEGER -> v.isIntegralNumber();
                    case NUMBER -> v.isNumber();
                    case NULL -> v.isNull();
                    case ANY -> true;
                    case OBJECT, HEADER_MATCH, HEADER_PAYLOAD_MATCH, ALERT, SESSION_MATCH, FIELD_MAP -> v.isObject();
                };
        if (!ok) {
            throw bad(where.at(index) + " must be " + article(kind) + ", got " + describe(v));
        }
        switch (kind) {
            case HEADER_MATCH -> headerMatch(() -> where.at(index), v);
            case HEADER_PAYLOAD_MATCH -> headerPayloadMatch(where.at(index), v);
            case ALERT -> alert(where, index, v);
            case SESSION_MATCH -> sessionMatch(where.at(index), v);
            case FIELD_MAP -> fieldMap(where.at(index), v);
            default -> {}
        }
    }

    private void headerMatch(Supplier<String> where, JsonNode v) {
        if (validMatches.containsKey(v)) {
            return;
        }
        try {
            HeaderMatchParser.parse(v);
        } catch (ProtocolException e) {
            throw new ProtocolException(ErrorSubtype.BAD_HEADER_MATCH, where.get() + ": " + e.getMessage());
        }
        if (validMatches.size() >= VALID_MATCHES_MAX) {
            validMatches.clear();
        }
        validMatches.put(v.deepCopy(), Boolean.TRUE); // a copy: the graph's own node may change later
    }

    private void headerPayloadMatch(String where, JsonNode v) {
        allowOnly(where, v, "type", "header_match", "payload_match");
        JsonNode t = v.get("type");
        if (t != null && !"HeaderPayloadMatch".equals(t.asText(null))) {
            throw bad(where + ": type must be \"HeaderPayloadMatch\"");
        }
        JsonNode hm = v.get("header_match");
        if (hm != null) {
            if (!hm.isObject()) {
                throw new ProtocolException(ErrorSubtype.BAD_HEADER_MATCH, where + ": header_match must be an object");
            }
            headerMatch(() -> where + ".header_match", hm);
        }
        JsonNode pm = v.get("payload_match");
        if (pm == null) {
            return;
        }
        if (!pm.isArray()) {
            throw badPayload(where + ": payload_match must be an array");
        }
        for (int i = 0; i < pm.size(); i++) {
            String w = where + ".payload_match[" + i + "]";
            JsonNode p = pm.get(i);
            if (!p.isObject()) {
                throw badPayload(w + " must be an object");
            }
            if (!p.path("pattern").isTextual()) {
                throw badPayload(w + ": pattern must be a string");
            }
            if (p.has("is_regex") && !p.get("is_regex").isBoolean()) {
                throw badPayload(w + ": is_regex must be a boolean");
            }
            for (String f : new String[] {"from", "to"}) {
                if (p.has(f) && !(p.get(f).isIntegralNumber() && p.get(f).asLong() >= 0)) {
                    throw badPayload(w + ": " + f + " must be a non-negative integer");
                }
            }
            if (p.has("from")
                    && p.has("to")
                    && p.get("from").asLong() > p.get("to").asLong()) {
                throw badPayload(w + ": from > to");
            }
        }
    }

    private static void alert(Where where, int index, JsonNode v) {
        String unknown = unknownField(v, "message", "severity", "app_id");
        if (unknown != null) {
            throw bad(where.at(index) + ": unknown field '" + unknown + "'");
        }
        if (!v.path("message").isTextual()) {
            throw bad(where.at(index) + ": message must be a string");
        }
        JsonNode s = v.get("severity");
        if (s != null && !(s.isIntegralNumber() && s.asInt() >= 1 && s.asInt() <= 5)) {
            throw bad(where.at(index) + ": severity must be an integer 1..5");
        }
        if (v.has("app_id") && !v.get("app_id").isTextual()) {
            throw bad(where.at(index) + ": app_id must be a string");
        }
    }

    private static void sessionMatch(String where, JsonNode v) {
        allowOnly(where, v, "key", "is_field", "value");
        if (!v.path("key").isTextual()) {
            throw bad(where + ": key must be a string");
        }
        if (v.has("is_field") && !v.get("is_field").isBoolean()) {
            throw bad(where + ": is_field must be a boolean");
        }
        JsonNode val = v.get("value");
        if (val == null || !(val.isTextual() || val.isIntegralNumber())) {
            throw bad(where + ": value must be a string or an integer");
        }
        if (v.path("is_field").asBoolean(false)
                && MatchField.byName(val.asText()).isEmpty()) {
            throw bad(where + ": value '" + val.asText() + "' is not a header field name");
        }
    }

    private static void fieldMap(String where, JsonNode v) {
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String w = where + "." + e.getKey();
            if (MatchField.byName(e.getKey()).isEmpty()) {
                throw bad(w + ": not a header field name");
            }
            JsonNode target = e.getValue();
            if (target.isTextual()) {
                continue;
            }
            if (!target.isObject() || !target.path("key").isTextual()) {
                throw bad(w + " must be a session key string or {\"key\": string, \"mask\": value}");
            }
            allowOnly(w, target, "key", "mask");
            JsonNode mask = target.get("mask");
            if (mask != null) {
                try {
                    HeaderMatchParser.parseValue(e.getKey(), mask);
                } catch (ProtocolException ex) {
                    throw bad(w + ": bad mask: " + ex.getMessage());
                }
            }
        }
    }

    private static void allowOnly(String where, JsonNode v, String... names) {
        String unknown = unknownField(v, names);
        if (unknown != null) {
            throw bad(where + ": unknown field '" + unknown + "'");
        }
    }

    /** The first field of {@code v} not among {@code names}, or null. */
    private static String unknownField(JsonNode v, String... names) {
        for (Iterator<String> it = v.fieldNames(); it.hasNext(); ) {
            String n = it.next();
            boolean known = false;
            for (String a : names) {
                known |= a.equals(n);
            }
            if (!known) {
                return n;
            }
        }
        return null;
    }

    private static String article(ArgType.Kind kind) {
        return switch (kind) {
            case STRING -> "a string";
            case BOOL -> "a boolean";
            case INTEGER -> "an integer";
            case NUMBER -> "a number";
            case NULL -> "null";
            case ANY -> "any value";
            case OBJECT -> "an object";
            default -> "an object (" + kind.wireName() + ")";
        };
    }

    private static String describe(JsonNode v) {
        String s = v.toString();
        return v.getNodeType().name().toLowerCase() + " " + (s.length() > 40 ? s.substring(0, 40) + "..." : s);
    }

    private static ProtocolException bad(String message) {
        return new ProtocolException(ErrorSubtype.BAD_BLOCK, message);
    }

    private static ProtocolException badPayload(String message) {
        return new ProtocolException(ErrorSubtype.BAD_PAYLOAD_MATCH, message);
    }
}
