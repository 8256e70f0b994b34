package org.openbox.catalogue;

import java.util.Locale;

/** The five block classes of spec 3.6; the merge decides what it may do with a block from its class. */
public enum BlockClass {
    TERMINAL,
    CLASSIFIER,
    MODIFIER,
    STATIC,
    SHAPER;

    /** The name used in descriptors ("terminal", "classifier", ...). */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static BlockClass fromWireName(String name) {
        for (BlockClass c : values()) {
            if (c.wireName().equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown block class '" + name + "'");
    }
}
