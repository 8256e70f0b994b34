package org.openbox.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Typed access to the fields of one message object (check 11 of protocol/README.md): every
 * missing required field, wrong JSON type or out-of-range value is BAD_REQUEST/ILLEGAL_ARGUMENT
 * with a text naming the message and the field.
 */
final class Fields {
    static final BigInteger XID_LIMIT = BigInteger.ONE.shiftLeft(53);
    static final BigInteger LONG_LIMIT = BigInteger.ONE.shiftLeft(63);

    private final String type;
    private final JsonNode node;

    Fields(String type, JsonNode node) {
        this.type = type;
        this.node = node;
    }

    JsonNode node() {
        return node;
    }

    ProtocolException illegal(String where, String what) {
        return new ProtocolException(ErrorSubtype.ILLEGAL_ARGUMENT, type + "." + where + ": " + what);
    }

    boolean has(String name) {
        return node.has(name);
    }

    private JsonNode required(String name) {
        JsonNode v = node.get(name);
        if (v == null) {
            throw illegal(name, "required field is missing");
        }
        return v;
    }

    /** A JSON integer in [0, limit). */
    static long integer(JsonNode v, BigInteger limit) {
        if (v == null || !v.isIntegralNumber()) {
            return -1;
        }
        BigInteger b = v.bigIntegerValue();
        return b.signum() >= 0 && b.compareTo(limit) < 0 ? b.longValue() : -1;
    }

    long reqLong(String name, BigInteger limit) {
        JsonNode v = required(name);
        long x = integer(v, limit);
        if (x < 0) {
            throw illegal(name, "must be an integer in [0, 2^" + (limit.bitLength() - 1) + "), got " + v);
        }
        return x;
    }

    Integer optIntInRange(String name, int min, int max) {
        JsonNode v = node.get(name);
        return v == null ? null : intInRange(name, v, min, max);
    }

    int reqIntInRange(String name, int min, int max) {
        return intInRange(name, required(name), min, max);
    }

    private int intInRange(String name, JsonNode v, int min, int max) {
        long x = integer(v, BigInteger.valueOf(max + 1L));
        if (x < min) {
            throw illegal(name, "must be an integer in [" + min + ", " + max + "], got " + v);
        }
        return (int) x;
    }

    double reqTimestamp(String name) {
        JsonNode v = required(name);
        if (!v.isNumber() || v.doubleValue() < 0 || !Double.isFinite(v.doubleValue())) {
            throw illegal(name, "must be a non-negative number, got " + v);
        }
        return v.doubleValue();
    }

    Double optTimestamp(String name) {
        return node.has(name) ? reqTimestamp(name) : null;
    }

    String reqString(String name) {
        JsonNode v = required(name);
        if (!v.isTextual()) {
            throw illegal(name, "must be a string, got " + v.getNodeType());
        }
        return v.asText();
    }

    String optString(String name) {
        return node.has(name) ? reqString(name) : null;
    }

    ObjectNode reqObject(String name) {
        JsonNode v = required(name);
        if (!v.isObject()) {
            throw illegal(name, "must be an object, got " + v.getNodeType());
        }
        return ((ObjectNode) v).deepCopy();
    }

    ObjectNode optObject(String name) {
        return node.has(name) ? reqObject(name) : null;
    }

    /** Any JSON value, null included. */
    JsonNode reqValue(String name) {
        return required(name).deepCopy();
    }

    JsonNode optValue(String name) {
        return node.has(name) ? node.get(name).deepCopy() : null;
    }

    Boolean optBoolean(String name) {
        JsonNode v = node.get(name);
        if (v == null) {
            return null;
        }
        if (!v.isBoolean()) {
            throw illegal(name, "must be a boolean, got " + v.getNodeType());
        }
        return v.booleanValue();
    }

    List<String> optStringList(String name) {
        JsonNode v = node.get(name);
        if (v == null) {
            return null;
        }
        if (!v.isArray()) {
            throw illegal(name, "must be an array of strings, got " + v.getNodeType());
        }
        List<String> out = new ArrayList<>();
        for (JsonNode e : v) {
            if (!e.isTextual()) {
                throw illegal(name, "must be an array of strings, has " + e);
            }
            out.add(e.asText());
        }
        return out;
    }

    /** An array whose elements are objects, each read with a Fields named name[i]. */
    List<Fields> reqObjectArray(String name) {
        JsonNode v = required(name);
        if (!v.isArray()) {
            throw illegal(name, "must be an array, got " + v.getNodeType());
        }
        List<Fields> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            if (!v.get(i).isObject()) {
                throw illegal(name + "[" + i + "]", "must be an object");
            }
            out.add(new Fields(type + "." + name + "[" + i + "]", v.get(i)));
        }
        return out;
    }

    /** For an array field already shape-checked elsewhere: present but not an array is illegal. */
    void checkArray(String name, boolean required) {
        JsonNode v = node.get(name);
        if (v == null) {
            if (required) {
                throw illegal(name, "required field is missing");
            }
            return;
        }
        if (!v.isArray()) {
            throw illegal(name, "must be an array, got " + v.getNodeType());
        }
    }
}
