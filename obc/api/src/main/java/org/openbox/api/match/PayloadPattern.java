package org.openbox.api.match;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A payload pattern of a HeaderPayloadClassifier rule (spec 5.43 PayloadPattern): a regular
 * expression, or a literal string, optionally limited to start offsets in [from, to].
 *
 * @param from first start offset, or null for none
 * @param to   last start offset, or null for none
 */
public record PayloadPattern(String pattern, boolean regex, Integer from, Integer to) {

    public PayloadPattern {
        Objects.requireNonNull(pattern, "pattern");
    }

    public static PayloadPattern regex(String pattern) {
        return new PayloadPattern(pattern, true, null, null);
    }

    public static PayloadPattern literal(String text) {
        return new PayloadPattern(text, false, null, null);
    }

    /** The same pattern, matching only when it starts at an offset in [from, to]. */
    public PayloadPattern between(int from, int to) {
        return new PayloadPattern(pattern, regex, from, to);
    }

    public ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("type", "PayloadPattern").put("pattern", pattern).put("is_regex", regex);
        if (from != null) {
            o.put("from", from);
        }
        if (to != null) {
            o.put("to", to);
        }
        return o;
    }
}
