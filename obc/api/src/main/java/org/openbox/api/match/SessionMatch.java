package org.openbox.api.match;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.openbox.protocol.match.MatchField;

/**
 * One SessionClassifier rule (spec 5.28): the session value stored under {@code key} compared
 * with a packet field ({@link #field}) or with a constant ({@link #value}, "%mask" allowed).
 */
public record SessionMatch(String key, boolean isField, String value) {

    public static SessionMatch field(String key, MatchField field) {
        return new SessionMatch(key, true, field.name());
    }

    public static SessionMatch value(String key, String value) {
        return new SessionMatch(key, false, value);
    }

    public ObjectNode toJson() {
        return JsonNodeFactory.instance
                .objectNode()
                .put("key", key)
                .put("is_field", isField)
                .put("value", value);
    }
}
