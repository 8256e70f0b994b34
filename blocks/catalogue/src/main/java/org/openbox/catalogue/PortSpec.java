package org.openbox.catalogue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * How many input or output ports a block has: a fixed number, one per element of an array
 * argument plus a constant ({@code {"per": ARG, "plus": K}}), or a number the block computes
 * from an argument ({@code {"from": ARG}}; only Ipv4AddressTranslator's {@code input_spec}).
 *
 * @param fixed the count for {@link Kind#FIXED}
 * @param arg   the argument for {@link Kind#PER} and {@link Kind#FROM}
 * @param plus  the constant added for {@link Kind#PER}
 */
public record PortSpec(Kind kind, int fixed, String arg, int plus) {

    public enum Kind {
        FIXED,
        PER,
        FROM
    }

    public static PortSpec fixed(int count) {
        return new PortSpec(Kind.FIXED, count, null, 0);
    }

    public static PortSpec per(String arg, int plus) {
        return new PortSpec(Kind.PER, 0, arg, plus);
    }

    public static PortSpec from(String arg) {
        return new PortSpec(Kind.FROM, 0, arg, 0);
    }

    /** The port count for a block configured with {@code config} (null means no config). */
    public int count(ObjectNode config) {
        JsonNode value = config == null ? null : config.get(arg == null ? "" : arg);
        return switch (kind) {
            case FIXED -> fixed;
            case PER -> (value != null && value.isArray() ? value.size() : 0) + plus;
            case FROM -> InputSpecs.outputCount(value);
        };
    }

    /** The descriptor form: an integer or an object. */
    public JsonNode toJson(com.fasterxml.jackson.databind.ObjectMapper mapper) {
        return switch (kind) {
            case FIXED -> mapper.getNodeFactory().numberNode(fixed);
            case PER -> {
                ObjectNode o = mapper.createObjectNode().put("per", arg);
                if (plus != 0) {
                    o.put("plus", plus);
                }
                yield o;
            }
            case FROM -> mapper.createObjectNode().put("from", arg);
        };
    }
}
