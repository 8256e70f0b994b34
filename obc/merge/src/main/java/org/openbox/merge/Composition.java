package org.openbox.merge;

/**
 * How the applications of one OBI are composed (design/merge.md, "Composing applications").
 * CHAIN: A then B (A's output terminals lead into B). DISTINCT: each packet goes through
 * exactly one application (a front classifier or the input terminal splits traffic).
 */
public enum Composition {
    CHAIN,
    DISTINCT
}
