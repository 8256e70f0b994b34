package org.openbox.protocol.match;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;

/**
 * Parses header-match values (spec 4.1, 5.7) by the grammar of protocol/README.md: masked
 * values, prefixes, ranges, nested lists and JSON numbers, plus field prerequisites for a
 * whole match object. Every failure is a BAD_HEADER_MATCH naming the field and the value.
 */
public final class HeaderMatchParser {
    /** Deepest bracket nesting a value may have (the C++ parser has the same limit). */
    public static final int MAX_DEPTH = 32;

    private HeaderMatchParser() {}

    /** Parses one field's value. */
    public static FieldMatch parseValue(String fieldName, JsonNode value) {
        MatchField field =
                MatchField.byName(fieldName).orElseThrow(() -> error("unknown header match field '" + fieldName + "'"));
        if (value == null || value.isNull()) {
            throw error(field, "value is missing or null");
        }
        if (value.isNumber()) {
            if (field.syntax() != Syntax.INTEGER) {
                throw error(field, "a " + field.syntax() + " field needs a string value, got the number " + value);
            }
            if (!value.isIntegralNumber() || value.bigIntegerValue().signum() < 0) {
                throw error(field, "a JSON number must be a non-negative integer, got " + value);
            }
            BigInteger v = value.bigIntegerValue();
            checkWidth(field, v, value.toString());
            return new FieldMatch(field, List.of(new Term.Masked(v, field.fullMask())));
        }
        if (!value.isTextual()) {
            throw error(field, "value must be a string or a non-negative integer, got " + value.getNodeType());
        }
        String text = value.asText();
        List<Term> terms = new ArrayList<>();
        new ValueReader(field, text).readValue(terms);
        return new FieldMatch(field, List.copyOf(terms));
    }

    /** Parses a match object (field name -> value) and checks the prerequisites of its fields. */
    public static HeaderMatch parse(JsonNode matchObject) {
        if (matchObject == null || !matchObject.isObject()) {
            throw error("a header match must be a JSON object, got "
                    + (matchObject == null ? "nothing" : matchObject.getNodeType()));
        }
        Map<MatchField, FieldMatch> fields = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = matchObject.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            FieldMatch fm = parseValue(e.getKey(), e.getValue());
            if (fields.putIfAbsent(fm.field(), fm) != null) {
                throw error(fm.field(), "field given twice (names are case-insensitive; IPV4_PROTO is IP_PROTO)");
            }
        }
        for (FieldMatch fm : fields.values()) {
            checkPrerequisite(fm.field(), fields);
        }
        return new HeaderMatch(fields);
    }

    private static void checkPrerequisite(MatchField field, Map<MatchField, FieldMatch> fields) {
        MatchField.Prerequisite p = field.prerequisite();
        if (p == null) {
            return;
        }
        FieldMatch need = fields.get(p.field());
        if (need == null) {
            throw error(field, "prerequisite not met: needs " + p.field() + wanted(p));
        }
        for (Term t : need.terms()) {
            boolean ok = p.values().isEmpty()
                    || (t instanceof Term.Masked m
                            && m.mask().equals(p.field().fullMask())
                            && m.value().bitLength() < 32
                            && p.values().contains(m.value().intValue()));
            if (!ok) {
                throw error(field, "prerequisite not met: " + p.field() + " must admit only exact values" + wanted(p));
            }
        }
    }

    // Built only for the error message: valid matches (nearly all) never pay for it.
    private static String wanted(MatchField.Prerequisite p) {
        if (p.values().isEmpty()) {
            return "";
        }
        List<String> vals = new ArrayList<>();
        p.values().stream().sorted().forEach(v -> vals.add("0x" + Integer.toHexString(v)));
        return " with " + String.join(" or ", vals);
    }

    private static void checkWidth(MatchField field, BigInteger v, String text) {
        if (v.bitLength() > field.width()) {
            throw error(field, "'" + text + "' does not fit in " + field.width() + " bits");
        }
    }

    static ProtocolException error(String msg) {
        return new ProtocolException(ErrorSubtype.BAD_HEADER_MATCH, msg);
    }

    static ProtocolException error(MatchField field, String msg) {
        return error("header match field " + field + ": " + msg);
    }

    /** Reads one value string: single, range or (nested) list. */
    private static final class ValueReader {
        /** Longest part of a value quoted in an error (values may be hostile). */
        private static final int SHOWN = 80;

        private final MatchField field;
        private final String whole;

        ValueReader(MatchField field, String whole) {
            this.field = field;
            this.whole = whole;
        }

        void readValue(List<Term> out) {
            String t = trim(whole);
            if (t.isEmpty()) {
                throw fail("empty value");
            }
            checkNesting(t);
            readElement(t, out);
        }

        /**
         * Balanced brackets nested at most {@link #MAX_DEPTH} deep, by one linear scan: each
         * level below scans its content once, so with the depth bounded parsing stays linear
         * and its recursion shallow.
         */
        private void checkNesting(String t) {
            int depth = 0;
            for (int i = 0; i < t.length(); i++) {
                char c = t.charAt(i);
                if (c == '[' && ++depth > MAX_DEPTH) {
                    throw fail("brackets nested deeper than " + MAX_DEPTH + " levels");
                } else if (c == ']' && --depth < 0) {
                    throw fail("unbalanced brackets");
                }
            }
            if (depth != 0) {
                throw fail("unbalanced brackets");
            }
        }

        /** An element: a bracket group (range or list) or a single. */
        private void readElement(String t, List<Term> out) {
            if (t.startsWith("[")) {
                if (closingBracket(t) != t.length() - 1) {
                    throw fail("unbalanced brackets or text after ']'");
                }
                readBracket(t.substring(1, t.length() - 1), out);
            } else {
                if (t.indexOf('[') >= 0 || t.indexOf(']') >= 0 || t.indexOf(',') >= 0) {
                    throw fail("stray bracket or comma");
                }
                out.add(readSingle(t));
            }
        }

        private void readBracket(String inner, List<Term> out) {
            List<String> parts = splitTopLevel(inner);
            boolean rangeSyntax = field.syntax() == Syntax.INTEGER || field.syntax() == Syntax.IPV4;
            if (parts.size() == 1
                    && rangeSyntax
                    && !trim(parts.get(0)).startsWith("[")
                    && parts.get(0).indexOf(':') >= 0) {
                out.add(readRange(parts.get(0)));
                return;
            }
            for (String p : parts) {
                String e = trim(p);
                if (e.isEmpty()) {
                    throw fail("empty list or list element");
                }
                readElement(e, out);
            }
        }

        private Term readRange(String body) {
            int colon = body.indexOf(':');
            if (body.indexOf(':', colon + 1) >= 0) {
                throw fail("a range has exactly one ':'");
            }
            String lo = trim(body.substring(0, colon));
            String hi = trim(body.substring(colon + 1));
            BigInteger min = lo.isEmpty() ? BigInteger.ZERO : scalar(lo);
            BigInteger max = hi.isEmpty() ? field.fullMask() : scalar(hi);
            if (min.compareTo(max) > 0) {
                throw fail("range minimum " + lo + " is greater than maximum " + hi);
            }
            return new Term.Range(min, max);
        }

        /** scalar, scalar%mask, or addr/len for address fields. */
        private Term readSingle(String t) {
            int pct = t.indexOf('%');
            if (pct >= 0) {
                if (t.indexOf('%', pct + 1) >= 0) {
                    throw fail("more than one '%'");
                }
                BigInteger v = scalar(trim(t.substring(0, pct)));
                BigInteger m = scalar(trim(t.substring(pct + 1)));
                return new Term.Masked(v.and(m), m);
            }
            int slash = t.indexOf('/');
            if (slash >= 0 && (field.syntax() == Syntax.IPV4 || field.syntax() == Syntax.IPV6)) {
                BigInteger v = scalar(t.substring(0, slash));
                int len = Scalars.parsePrefixLength(t.substring(slash + 1), field.width());
                if (len < 0) {
                    throw fail("bad prefix length '" + t.substring(slash + 1) + "'");
                }
                BigInteger m = Scalars.prefixMask(len, field.width());
                return new Term.Masked(v.and(m), m);
            }
            return new Term.Masked(scalar(t), field.fullMask());
        }

        private BigInteger scalar(String t) {
            BigInteger v = Scalars.parse(field.syntax(), t);
            if (v == null) {
                throw fail("'" + t + "' is not a valid " + syntaxName());
            }
            checkWidth(field, v, t);
            return v;
        }

        private String syntaxName() {
            return switch (field.syntax()) {
                case INTEGER -> "integer (decimal or 0x hex)";
                case MAC -> "MAC address";
                case IPV4 -> "IPv4 address";
                case IPV6 -> "IPv6 address";
            };
        }

        private ProtocolException fail(String msg) {
            String shown = whole.length() <= SHOWN ? whole : whole.substring(0, SHOWN) + "...";
            return error(field, msg + " in '" + shown + "'");
        }

        /** Index of the ']' closing the '[' at index 0, or -1. */
        private static int closingBracket(String t) {
            int depth = 0;
            for (int i = 0; i < t.length(); i++) {
                char c = t.charAt(i);
                if (c == '[') {
                    depth++;
                } else if (c == ']') {
                    depth--;
                    if (depth == 0) {
                        return i;
                    }
                    if (depth < 0) {
                        return -1;
                    }
                }
            }
            return -1;
        }

        /** Splits at commas outside nested brackets. */
        private List<String> splitTopLevel(String inner) {
            List<String> parts = new ArrayList<>();
            int depth = 0;
            int start = 0;
            for (int i = 0; i < inner.length(); i++) {
                char c = inner.charAt(i);
                if (c == '[') {
                    depth++;
                } else if (c == ']') {
                    depth--;
                    if (depth < 0) {
                        throw fail("unbalanced brackets");
                    }
                } else if (c == ',' && depth == 0) {
                    parts.add(inner.substring(start, i));
                    start = i + 1;
                }
            }
            if (depth != 0) {
                throw fail("unbalanced brackets");
            }
            parts.add(inner.substring(start));
            return parts;
        }

        /** Strips spaces and tabs, the only whitespace allowed around tokens. */
        private static String trim(String s) {
            int a = 0;
            int b = s.length();
            while (a < b && (s.charAt(a) == ' ' || s.charAt(a) == '\t')) {
                a++;
            }
            while (b > a && (s.charAt(b - 1) == ' ' || s.charAt(b - 1) == '\t')) {
                b--;
            }
            return s.substring(a, b);
        }
    }
}
