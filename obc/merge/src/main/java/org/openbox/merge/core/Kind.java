package org.openbox.merge.core;

/**
 * What the merge may do with a block (design/merge.md table): the catalogue's block class,
 * with terminals split into where packets enter (INPUT), leave (OUTPUT) or are dropped (DROP).
 */
public enum Kind {
    INPUT,
    OUTPUT,
    DROP,
    CLASSIFIER,
    MODIFIER,
    STATIC,
    SHAPER
}
