package org.openbox.controller.handles;

import org.openbox.catalogue.BlockClass;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.HandleDescriptor;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;

/**
 * A handle name as an application uses it on one of its blocks, resolved against the
 * block's catalogue descriptor:
 * <ul>
 * <li>{@code RULE_ARRAY}: a classifier's per-rule array ({@code count}, {@code rate} of
 *     HeaderClassifier: element r is rule r);</li>
 * <li>{@code RULE_INDEXED}: one member of an indexed family of a classifier
 *     ({@code count_3} of RegexClassifier: rule 3; {@code reset_2}: rule 2); also accepted
 *     for a classifier whose family is an array ({@code count_3} of HeaderClassifier is
 *     element 3 of {@code count});</li>
 * <li>{@code PLAIN}: anything else, passed on unchanged.</li>
 * </ul>
 * The per-rule kinds are what must be mapped onto the merged rules that implement the
 * application's rules; {@code base} is the family name shared by both spellings
 * ({@code count} for {@code count} and {@code count_i}).
 */
record HandleName(String handle, Kind kind, String base, int index) {

    enum Kind {
        PLAIN,
        RULE_ARRAY,
        RULE_INDEXED
    }

    static HandleName read(BlockDescriptor d, String blockName, String handle) {
        if (d == null) {
            return plain(handle);
        }
        HandleDescriptor h = d.readHandles().stream()
                .filter(x -> x.matches(handle))
                .findFirst()
                .orElse(null);
        if (h == null) {
            HandleName element = arrayElement(d, handle);
            if (element != null) {
                return element;
            }
            throw new ProtocolException(
                    ErrorSubtype.ILLEGAL_ARGUMENT,
                    "block '" + blockName + "' (" + d.name() + ") has no read handle '" + handle + "'; it has "
                            + names(d.readHandles()));
        }
        return resolve(d, h, handle);
    }

    /**
     * {@code count_3} on a classifier whose family is the per-rule array {@code count}
     * (HeaderClassifier): rule 3's element, so every classifier answers the indexed spelling.
     */
    private static HandleName arrayElement(BlockDescriptor d, String handle) {
        int us = handle.lastIndexOf('_');
        if (d.blockClass() != BlockClass.CLASSIFIER || us <= 0 || us == handle.length() - 1) {
            return null;
        }
        String base = handle.substring(0, us);
        String digits = handle.substring(us + 1);
        if (!digits.chars().allMatch(Character::isDigit)
                || d.readHandles().stream()
                        .noneMatch(x -> !x.indexed()
                                && x.name().equals(base)
                                && x.type().endsWith("[]"))) {
            return null;
        }
        try {
            return new HandleName(handle, Kind.RULE_INDEXED, base, Integer.parseInt(digits));
        } catch (NumberFormatException e) {
            throw new ProtocolException(
                    ErrorSubtype.ILLEGAL_ARGUMENT, "handle '" + handle + "': index " + digits + " is out of range");
        }
    }

    static HandleName write(BlockDescriptor d, String blockName, String handle) {
        if (d == null) {
            return plain(handle);
        }
        HandleDescriptor h = d.writeHandles().stream()
                .filter(x -> x.matches(handle))
                .findFirst()
                .orElseThrow(() -> new ProtocolException(
                        ErrorSubtype.ILLEGAL_ARGUMENT,
                        "block '" + blockName + "' (" + d.name() + ") has no write handle '" + handle + "'; it has "
                                + names(d.writeHandles())));
        HandleName n = resolve(d, h, handle);
        // a whole-array write is not per rule: it is passed on like any other value
        return n.kind == Kind.RULE_ARRAY ? plain(handle) : n;
    }

    private static HandleName resolve(BlockDescriptor d, HandleDescriptor h, String handle) {
        if (d.blockClass() != BlockClass.CLASSIFIER) {
            return plain(handle);
        }
        if (h.indexed()) {
            String base = h.name().substring(0, h.name().length() - 2); // "count_i" -> "count"
            String digits = handle.substring(base.length() + 1);
            int index;
            try {
                index = Integer.parseInt(digits);
            } catch (NumberFormatException e) {
                throw new ProtocolException(
                        ErrorSubtype.ILLEGAL_ARGUMENT, "handle '" + handle + "': index " + digits + " is out of range");
            }
            return new HandleName(handle, Kind.RULE_INDEXED, base, index);
        }
        if (h.type().endsWith("[]")) {
            return new HandleName(handle, Kind.RULE_ARRAY, h.name(), -1);
        }
        return plain(handle);
    }

    private static HandleName plain(String handle) {
        return new HandleName(handle, Kind.PLAIN, handle, -1);
    }

    boolean perRule() {
        return kind != Kind.PLAIN;
    }

    /** The member of family {@code base} for merged rule {@code rule}, e.g. {@code count_7}. */
    String member(int rule) {
        return base + "_" + rule;
    }

    private static String names(java.util.List<HandleDescriptor> hs) {
        return hs.isEmpty()
                ? "none"
                : hs.stream().map(HandleDescriptor::name).toList().toString();
    }
}
