package org.openbox.merge.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.openbox.merge.MergeException;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.match.FieldMatch;
import org.openbox.protocol.match.MatchField;
import org.openbox.protocol.match.Term;

/**
 * Reads the rules of a classifier block into the uniform {@link Rule} form, and writes a
 * rule list back as the simplest block that expresses it:
 * <ul>
 * <li>HeaderClassifier: rule i = match[i]; no match drops.</li>
 * <li>RegexClassifier: rule i = pattern[i] (payload or whole frame per payload_only); no match drops.</li>
 * <li>RegexMatcher: rule 0 = any pattern (all with match_all), rule 1 = every packet.</li>
 * <li>HeaderPayloadClassifier: rule i = match[i].header_match AND every match[i].payload_match
 *     pattern found in the payload; no match drops. Patterns with from/to are not handled.</li>
 * </ul>
 */
public final class ClassifierRules {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private ClassifierRules() {}

    /** The block type and config that express a rule list. */
    public record Emitted(String type, ObjectNode config) {}

    /**
     * The rules of a classifier block, or null for a classifier the merge treats as opaque
     * (other types, or HeaderPayloadClassifier patterns with from/to offsets).
     *
     * @throws MergeException on a malformed config, naming the block
     */
    public static List<Rule> read(String app, Block b) {
        return read(app, b, new HeaderMatchReader());
    }

    /** As {@link #read(String, Block)}, parsing header matches with {@code reader} (shared by one merge). */
    public static List<Rule> read(String app, Block b, HeaderMatchReader reader) {
        ObjectNode c = b.config() == null ? F.objectNode() : b.config();
        try {
            return switch (b.type()) {
                case "HeaderClassifier" -> header(app, b, c, reader);
                case "RegexClassifier" -> regex(app, b, c);
                case "RegexMatcher" -> matcher(app, b, c);
                case "HeaderPayloadClassifier" -> headerPayload(app, b, c, reader);
                default -> null;
            };
        } catch (ProtocolException e) {
            throw new MergeException("block '" + b.name() + "' (" + b.type() + "): " + e.getMessage());
        }
    }

    /**
     * The block without the header matches {@link #read} parses (a HeaderClassifier's
     * {@code match} entries; a HeaderPayloadClassifier's {@code header_match} objects), for
     * checking the rest of its config after a successful read without parsing them again.
     * Other blocks are returned as they are.
     */
    public static Block withoutHeaderMatches(Block b) {
        ObjectNode c = b.config();
        if (c == null || !c.path("match").isArray()) return b;
        ArrayNode rest = F.arrayNode();
        switch (b.type()) {
            case "HeaderClassifier" -> {}
            case "HeaderPayloadClassifier" -> {
                for (JsonNode m : c.get("match")) {
                    if (m.isObject() && m.path("header_match").isObject()) {
                        ObjectNode copy = F.objectNode();
                        m.fields().forEachRemaining(e -> {
                            if (!e.getKey().equals("header_match")) copy.set(e.getKey(), e.getValue());
                        });
                        rest.add(copy);
                    } else {
                        rest.add(m);
                    }
                }
            }
            default -> {
                return b;
            }
        }
        ObjectNode copy = F.objectNode();
        c.fields().forEachRemaining(e -> copy.set(e.getKey(), e.getKey().equals("match") ? rest : e.getValue()));
        return new Block(b.type(), b.name(), copy);
    }

    private static List<Rule> header(String app, Block b, ObjectNode c, HeaderMatchReader reader) {
        JsonNode match = array(b, c, "match");
        List<Rule> out = new ArrayList<>(match.size());
        for (int i = 0; i < match.size(); i++) {
            out.add(new Rule(reader.terms(match.get(i)), List.of(), false, List.of(new RuleRef(app, b.name(), i))));
        }
        return out;
    }

    private static List<Rule> regex(String app, Block b, ObjectNode c) {
        List<String> pats = patterns(b, c);
        boolean whole = !c.path("payload_only").asBoolean(false);
        List<Rule> out = new ArrayList<>();
        for (int i = 0; i < pats.size(); i++) {
            out.add(new Rule(Map.of(), List.of(pats.get(i)), whole, List.of(new RuleRef(app, b.name(), i))));
        }
        return out;
    }

    private static List<Rule> matcher(String app, Block b, ObjectNode c) {
        List<String> pats = patterns(b, c);
        boolean whole = !c.path("payload_only").asBoolean(false);
        boolean all = c.path("match_all").asBoolean(false);
        Rule first;
        RuleRef r0 = new RuleRef(app, b.name(), 0);
        if (pats.isEmpty()) {
            first = all
                    ? Rule.any(List.of(r0)) // all of none: true
                    : new Rule(Map.of(MatchField.ETH_TYPE, List.of()), List.of(), false, List.of(r0)); // never
        } else if (all || pats.size() == 1) {
            first = new Rule(Map.of(), pats, whole, List.of(r0));
        } else {
            first = new Rule(Map.of(), List.of(alternation(pats)), whole, List.of(r0));
        }
        return List.of(first, Rule.any(List.of(new RuleRef(app, b.name(), 1))));
    }

    /** One regex matching where any of pats matches. */
    public static String alternation(List<String> pats) {
        StringBuilder sb = new StringBuilder();
        for (String p : pats) {
            if (sb.length() > 0) sb.append('|');
            sb.append("(?:").append(p).append(')');
        }
        return sb.toString();
    }

    private static List<Rule> headerPayload(String app, Block b, ObjectNode c, HeaderMatchReader reader) {
        JsonNode match = array(b, c, "match");
        List<Rule> out = new ArrayList<>();
        for (int i = 0; i < match.size(); i++) {
            JsonNode m = match.get(i);
            if (!m.isObject()) throw bad(b, "match[" + i + "] must be an object");
            JsonNode hm = m.get("header_match");
            Map<MatchField, List<Term>> h = hm == null || hm.isNull() ? Map.of() : reader.terms(hm);
            List<String> pats = new ArrayList<>();
            JsonNode pm = m.path("payload_match");
            if (!pm.isMissingNode() && !pm.isArray()) throw bad(b, "match[" + i + "].payload_match must be an array");
            for (JsonNode p : pm) {
                if (p.has("from") || p.has("to")) return null; // offsets: opaque
                JsonNode pat = p.get("pattern");
                if (pat == null || !pat.isTextual())
                    throw bad(b, "match[" + i + "].payload_match needs a string 'pattern'");
                pats.add(p.path("is_regex").asBoolean(true) ? pat.asText() : Pattern.quote(pat.asText()));
            }
            out.add(new Rule(h, pats, false, List.of(new RuleRef(app, b.name(), i))));
        }
        return out;
    }

    private static JsonNode array(Block b, ObjectNode c, String arg) {
        JsonNode a = c.get(arg);
        if (a == null || !a.isArray()) throw bad(b, "'" + arg + "' must be an array");
        return a;
    }

    private static List<String> patterns(Block b, ObjectNode c) {
        JsonNode a = array(b, c, "pattern");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).isTextual()) throw bad(b, "pattern[" + i + "] must be a string");
            try {
                Pattern.compile(a.get(i).asText());
            } catch (RuntimeException e) {
                throw bad(b, "pattern[" + i + "] is not a valid regex: " + e.getMessage());
            }
            out.add(a.get(i).asText());
        }
        return out;
    }

    private static MergeException bad(Block b, String what) {
        return new MergeException("block '" + b.name() + "' (" + b.type() + "): " + what);
    }

    /** Remembers the wire value of each (field, terms) already written (rules share many). */
    public static final class WireCache {
        private final java.util.HashMap<FieldMatch, JsonNode> values = new java.util.HashMap<>();

        JsonNode value(FieldMatch fm) {
            return values.computeIfAbsent(fm, FieldMatch::toWireValue);
        }
    }

    /** The block type {@link #emit} writes the rules as. */
    public static String typeOf(List<Rule> rules) {
        boolean noPatterns = true, allSinglePayload = true;
        for (Rule r : rules) {
            if (!r.patterns().isEmpty()) noPatterns = false;
            if (!r.header().isEmpty() || r.patterns().size() != 1) allSinglePayload = false;
        }
        if (noPatterns) return "HeaderClassifier";
        if (allSinglePayload) {
            boolean whole = rules.get(0).whole();
            if (rules.stream().allMatch(r -> r.whole() == whole)) return "RegexClassifier";
        }
        return "HeaderPayloadClassifier";
    }

    /** The simplest block that implements the rules (first match wins, no match drops). */
    public static Emitted emit(List<Rule> rules) {
        return emit(rules, new WireCache());
    }

    /** As {@link #emit(List)}, reusing wire values across calls. */
    public static Emitted emit(List<Rule> rules, WireCache cache) {
        boolean noPatterns = true, allSinglePayload = true, anyWhole = false;
        for (Rule r : rules) {
            if (!r.patterns().isEmpty()) noPatterns = false;
            if (r.whole() && !r.patterns().isEmpty()) anyWhole = true;
            if (!r.header().isEmpty() || r.patterns().size() != 1) allSinglePayload = false;
        }
        if (noPatterns) {
            ObjectNode c = F.objectNode();
            ArrayNode m = c.putArray("match");
            for (Rule r : rules) m.add(wire(r, cache));
            return new Emitted("HeaderClassifier", c);
        }
        if (allSinglePayload) {
            boolean whole = rules.get(0).whole();
            boolean same = rules.stream().allMatch(r -> r.whole() == whole);
            if (same) {
                ObjectNode c = F.objectNode();
                ArrayNode p = c.putArray("pattern");
                for (Rule r : rules) p.add(r.patterns().get(0));
                c.put("payload_only", !whole);
                return new Emitted("RegexClassifier", c);
            }
        }
        if (anyWhole) {
            throw new IllegalStateException("whole-packet patterns cannot be written with header matches");
        }
        ObjectNode c = F.objectNode();
        ArrayNode m = c.putArray("match");
        for (Rule r : rules) {
            ObjectNode o = m.addObject();
            o.set("header_match", wire(r, cache));
            ArrayNode pm = o.putArray("payload_match");
            for (String p : r.patterns()) {
                pm.addObject().put("pattern", p).put("is_regex", true);
            }
        }
        return new Emitted("HeaderPayloadClassifier", c);
    }

    /** The header match of a rule as written on the wire (canonical field names, field order). */
    private static ObjectNode wire(Rule r, WireCache cache) {
        ObjectNode out = F.objectNode();
        r.header().forEach((f, t) -> out.set(f.name(), cache.value(new FieldMatch(f, t))));
        return out;
    }
}
