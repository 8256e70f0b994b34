package org.openbox.protocol.match;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One header-match rule: the conjunction of its fields (each at most once), in the order
 * they were given. Parsed by {@link HeaderMatchParser#parse}; {@link #toWire} writes it back.
 */
public record HeaderMatch(Map<MatchField, FieldMatch> fields) {
    public HeaderMatch {
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /** {"ETH_TYPE": "0x800", "IPV4_SRC": "10.0.0.0%255.0.0.0", ...} with canonical field names. */
    public ObjectNode toWire() {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        fields.forEach((f, m) -> out.set(f.name(), m.toWireValue()));
        return out;
    }
}
