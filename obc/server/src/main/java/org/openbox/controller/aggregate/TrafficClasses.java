package org.openbox.controller.aggregate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.openbox.merge.core.HeaderAlgebra;
import org.openbox.merge.core.Rule;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;
import org.openbox.protocol.match.Term;

/**
 * The traffic class of each application that declares one: a header match, checked when
 * the controller starts (a bad match fails start-up, naming the application). Immutable.
 */
public final class TrafficClasses {
    public static final TrafficClasses NONE = new TrafficClasses(Map.of());

    private final Map<String, ObjectNode> classes;

    private TrafficClasses(Map<String, ObjectNode> classes) {
        this.classes = classes;
    }

    /** Parses application name -> header match in JSON. */
    public static TrafficClasses parse(Map<String, String> json) {
        ObjectMapper mapper = new ObjectMapper();
        Map<String, ObjectNode> out = new HashMap<>();
        json.forEach((app, text) -> {
            try {
                JsonNode n = mapper.readTree(text);
                if (!(n instanceof ObjectNode o)) throw new IllegalArgumentException("not a JSON object");
                HeaderMatchParser.parse(o);
                out.put(app, o);
            } catch (Exception e) {
                throw new IllegalArgumentException(
                        "openbox.traffic-class." + app + " is not a header match: " + e.getMessage(), e);
            }
        });
        return new TrafficClasses(Map.copyOf(out));
    }

    /** The application's class, if it declares one. */
    public Optional<ObjectNode> of(String app) {
        return Optional.ofNullable(classes.get(app));
    }

    /** True when no packet can belong to both classes. */
    static boolean disjoint(ObjectNode a, ObjectNode b) {
        return !HeaderAlgebra.meets(rule(a), rule(b));
    }

    private static Rule rule(ObjectNode match) {
        Map<MatchField, List<Term>> h = new EnumMap<>(MatchField.class);
        HeaderMatchParser.parse(match).fields().forEach((f, fm) -> h.put(f, fm.terms()));
        return new Rule(h, List.of(), false, List.of());
    }
}
