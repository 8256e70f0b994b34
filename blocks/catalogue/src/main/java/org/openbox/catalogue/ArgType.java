package org.openbox.catalogue;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The type of an argument or handle: a base kind, possibly an array of it ({@code T[]}).
 * Structured kinds are described in blocks/catalogue/README.md.
 */
public record ArgType(Kind kind, boolean array) {

    public enum Kind {
        STRING,
        BOOL,
        INTEGER,
        NUMBER,
        NULL,
        ANY,
        OBJECT,
        HEADER_MATCH,
        HEADER_PAYLOAD_MATCH,
        ALERT,
        SESSION_MATCH,
        FIELD_MAP;

        private final String wireName = name().toLowerCase(Locale.ROOT);

        public String wireName() {
            return wireName;
        }
    }

    // Every type's text: each config check asks for its arguments' types, per block.
    private static final Map<String, ArgType> BY_TEXT = byText();

    private static Map<String, ArgType> byText() {
        Map<String, ArgType> m = new HashMap<>();
        for (Kind k : Kind.values()) {
            for (boolean array : new boolean[] {false, true}) {
                ArgType t = new ArgType(k, array);
                m.put(t.toString(), t);
            }
        }
        return Map.copyOf(m);
    }

    public static ArgType parse(String text) {
        ArgType t = BY_TEXT.get(text);
        if (t == null) {
            throw new IllegalArgumentException("unknown type '" + text + "'");
        }
        return t;
    }

    @Override
    public String toString() {
        return kind.wireName() + (array ? "[]" : "");
    }
}
