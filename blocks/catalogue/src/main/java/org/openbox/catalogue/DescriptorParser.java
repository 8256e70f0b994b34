package org.openbox.catalogue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a descriptor JSON object into a {@link BlockDescriptor}. The JSON Schema
 * (catalogue.schema.json) is the full rule set; this parser checks what it relies on and
 * throws {@link IllegalArgumentException} naming the descriptor and field otherwise.
 */
final class DescriptorParser {

    private DescriptorParser() {}

    static BlockDescriptor parse(JsonNode d) {
        String name = text(d, "name", "descriptor");
        String where = "descriptor " + name;
        BlockClass cls;
        try {
            cls = BlockClass.fromWireName(text(d, "class", where));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
        List<ArgDescriptor> config = new ArrayList<>();
        for (JsonNode a : array(d, "config", where)) {
            String argName = text(a, "name", where + " config");
            String type = text(a, "type", where + " arg " + argName);
            checkType(type, where + " arg " + argName);
            JsonNode req = a.get("required");
            config.add(new ArgDescriptor(
                    argName,
                    type,
                    req != null && req.asBoolean(),
                    a.get("default"),
                    a.path("description").asText("")));
        }
        return new BlockDescriptor(
                name,
                cls,
                text(d, "spec", where),
                d.path("required").asBoolean(false),
                d.path("obi").asBoolean(false),
                d.path("description").asText(""),
                config,
                handles(d, "read_handles", where),
                handles(d, "write_handles", where),
                ports(d, "inputs", where),
                ports(d, "outputs", where));
    }

    private static List<HandleDescriptor> handles(JsonNode d, String field, String where) {
        List<HandleDescriptor> out = new ArrayList<>();
        for (JsonNode h : array(d, field, where)) {
            String name = text(h, "name", where + " " + field);
            String type = text(h, "type", where + " handle " + name);
            checkType(type, where + " handle " + name);
            boolean indexed = h.path("indexed").asBoolean(false);
            if (indexed && !name.endsWith("_i")) {
                throw new IllegalArgumentException(where + ": indexed handle '" + name + "' must end in _i");
            }
            out.add(new HandleDescriptor(
                    name, type, indexed, h.path("description").asText("")));
        }
        return out;
    }

    private static PortSpec ports(JsonNode d, String field, String where) {
        JsonNode p = d.get(field);
        if (p != null && p.isInt() && p.asInt() >= 0) {
            return PortSpec.fixed(p.asInt());
        }
        if (p != null && p.isObject() && p.has("per")) {
            return PortSpec.per(p.get("per").asText(), p.path("plus").asInt(0));
        }
        if (p != null && p.isObject() && p.has("from")) {
            return PortSpec.from(p.get("from").asText());
        }
        throw new IllegalArgumentException(
                where + ": '" + field + "' must be a count, {\"per\": ARG} or {\"from\": ARG}");
    }

    private static void checkType(String type, String where) {
        try {
            ArgType.parse(type);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    private static String text(JsonNode d, String field, String where) {
        JsonNode v = d.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new IllegalArgumentException(where + ": '" + field + "' must be a non-empty string");
        }
        return v.asText();
    }

    private static JsonNode array(JsonNode d, String field, String where) {
        JsonNode v = d.get(field);
        if (v == null || !v.isArray()) {
            throw new IllegalArgumentException(where + ": '" + field + "' must be an array");
        }
        return v;
    }
}
