package org.openbox.catalogue;

import java.util.Locale;

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

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static ArgType parse(String text) {
        boolean array = text.endsWith("[]");
        String base = array ? text.substring(0, text.length() - 2) : text;
        for (Kind k : Kind.values()) {
            if (k.wireName().equals(base)) {
                return new ArgType(k, array);
            }
        }
        throw new IllegalArgumentException("unknown type '" + text + "'");
    }

    @Override
    public String toString() {
        return kind.wireName() + (array ? "[]" : "");
    }
}
