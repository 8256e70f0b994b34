package org.openbox.merge.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.match.FieldMatch;
import org.openbox.protocol.match.HeaderMatch;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;
import org.openbox.protocol.match.Term;

/**
 * Parses header-match objects as {@link HeaderMatchParser#parse} does, with the same results
 * and the same errors, but parses each distinct field value once: rule sets repeat most of
 * their values (one protocol, a few dozen port ranges, shared prefixes), so a classifier of
 * thousands of rules costs a few thousand value parses instead of tens of thousands.
 *
 * <p>A field value is remembered by (field name as written, JSON value). The parser's checks
 * on the object as a whole (each field once, prerequisites such as IPV4_SRC needing ETH_TYPE
 * 0x0800) depend only on which fields are present, in which order, and on the values of the
 * fields that prerequisites name ({@link #PREREQUISITE_FIELDS}); an object whose field list
 * and values of those fields were seen before passed them. Anything new, and every failure,
 * goes through {@link HeaderMatchParser#parse}, so errors are word for word the parser's.
 * Values nested more than {@link #MAX_NESTING} brackets deep are refused before parsing.
 * One reader per merge; not thread-safe.
 */
public final class HeaderMatchReader {
    /** Deepest bracket nesting accepted in one field value ("[[[1]]]" is 3): the protocol's. */
    public static final int MAX_NESTING = HeaderMatchParser.MAX_DEPTH;

    /** The fields some other field's prerequisite names (protocol/README.md, MatchField). */
    static final Set<MatchField> PREREQUISITE_FIELDS =
            EnumSet.of(MatchField.ETH_TYPE, MatchField.VLAN_VID, MatchField.IP_PROTO);

    private record ValueKey(String name, JsonNode value) {}

    private final Map<ValueKey, FieldMatch> values = new HashMap<>();
    /** Field lists (with the values of prerequisite fields) whose whole-object checks passed. */
    private final Set<List<Object>> shapes = new HashSet<>();

    /** As {@link HeaderMatchParser#parse}. @throws ProtocolException as the parser does */
    public HeaderMatch parse(JsonNode matchObject) {
        Map<MatchField, FieldMatch> fields = new LinkedHashMap<>();
        return read(matchObject, fields) ? new HeaderMatch(fields) : HeaderMatchParser.parse(matchObject);
    }

    /**
     * The terms of each field of a header-match object (as {@link #parse}, in field order).
     * @throws ProtocolException as the parser does
     */
    public Map<MatchField, List<Term>> terms(JsonNode matchObject) {
        Map<MatchField, FieldMatch> fields = new LinkedHashMap<>();
        if (!read(matchObject, fields))
            fields = HeaderMatchParser.parse(matchObject).fields();
        Map<MatchField, List<Term>> out = new EnumMap<>(MatchField.class);
        fields.forEach((f, fm) -> out.put(f, fm.terms()));
        return out;
    }

    /**
     * Fills {@code fields} and returns true when the object is known to pass the parser's
     * checks; false when the parser has to see it (it then reports any error).
     */
    private boolean read(JsonNode matchObject, Map<MatchField, FieldMatch> fields) {
        if (matchObject == null || !matchObject.isObject()) return false;
        List<Object> shape = new ArrayList<>(matchObject.size() + 2);
        for (Iterator<Map.Entry<String, JsonNode>> it = matchObject.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            FieldMatch fm = value(e.getKey(), e.getValue());
            if (fm == null || fields.putIfAbsent(fm.field(), fm) != null) return false;
            shape.add(PREREQUISITE_FIELDS.contains(fm.field()) ? fm : fm.field());
        }
        if (shapes.contains(shape)) return true;
        HeaderMatchParser.parse(matchObject); // throws the parser's error
        shapes.add(shape);
        return true;
    }

    /** The parsed value, or null when it does not parse (the caller then lets the parser report it). */
    private FieldMatch value(String name, JsonNode v) {
        if (v == null || !(v.isTextual() || v.isNumber())) return null;
        ValueKey key = new ValueKey(name, v);
        FieldMatch known = values.get(key);
        if (known != null) return known;
        if (v.isTextual()) checkNesting("", name, v.asText());
        FieldMatch fm;
        try {
            fm = HeaderMatchParser.parseValue(name, v);
        } catch (ProtocolException e) {
            return null;
        }
        values.put(key, fm);
        return fm;
    }

    /**
     * @param where prefix of the error message (where the value is)
     * @throws ProtocolException (BAD_HEADER_MATCH) when the value nests more than {@link #MAX_NESTING} brackets
     */
    public static void checkNesting(String where, String name, String text) {
        int depth = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '[' && ++depth > MAX_NESTING) {
                throw new ProtocolException(
                        ErrorSubtype.BAD_HEADER_MATCH,
                        where + "header match field " + name + ": value nested deeper than " + MAX_NESTING
                                + " brackets");
            } else if (c == ']') {
                depth--;
            }
        }
    }
}
