package org.openbox.controller.handles;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Combines the read results of the merged copies of one application block: numbers are
 * summed (integers stay integers), arrays element by element, objects field by field;
 * strings, booleans and other values keep the first answer. Nulls are ignored.
 */
public final class ResultCombiner {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ResultCombiner() {}

    public static JsonNode combine(List<JsonNode> values) {
        List<JsonNode> present = values.stream()
                .filter(v -> v != null && !v.isNull() && !v.isMissingNode())
                .toList();
        if (present.isEmpty()) {
            return NODES.nullNode();
        }
        if (present.size() == 1) {
            return present.get(0);
        }
        if (present.stream().allMatch(JsonNode::isNumber)) {
            return sum(present);
        }
        if (present.stream().allMatch(JsonNode::isArray)) {
            int n = present.stream().mapToInt(JsonNode::size).max().orElse(0);
            ArrayNode out = NODES.arrayNode();
            for (int i = 0; i < n; i++) {
                List<JsonNode> column = new ArrayList<>();
                for (JsonNode v : present) {
                    column.add(i < v.size() ? v.get(i) : null);
                }
                out.add(combine(column));
            }
            return out;
        }
        if (present.stream().allMatch(JsonNode::isObject)) {
            Set<String> fields = new LinkedHashSet<>();
            present.forEach(v -> v.fieldNames().forEachRemaining(fields::add));
            ObjectNode out = NODES.objectNode();
            for (String f : fields) {
                List<JsonNode> column = new ArrayList<>();
                present.forEach(v -> column.add(v.get(f)));
                out.set(f, combine(column));
            }
            return out;
        }
        return present.get(0);
    }

    /** Sum of numbers: integral when every input is integral. */
    public static JsonNode sum(List<JsonNode> numbers) {
        boolean integral = numbers.stream().allMatch(JsonNode::isIntegralNumber);
        if (integral) {
            java.math.BigInteger total = java.math.BigInteger.ZERO;
            for (JsonNode n : numbers) {
                total = total.add(n.bigIntegerValue());
            }
            if (total.bitLength() < 32) {
                return NODES.numberNode(total.intValue()); // same node type as parsed JSON
            }
            return total.bitLength() < 64 ? NODES.numberNode(total.longValue()) : NODES.numberNode(total);
        }
        double total = 0;
        for (Iterator<JsonNode> it = numbers.iterator(); it.hasNext(); ) {
            total += it.next().asDouble();
        }
        return NODES.numberNode(total);
    }
}
