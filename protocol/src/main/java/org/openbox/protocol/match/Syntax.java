package org.openbox.protocol.match;

/** How the scalars of a header-match field are written (protocol/README.md). */
public enum Syntax {
    /** Decimal or 0x-hex, or a non-negative JSON number. */
    INTEGER,
    /** Six two-digit hex groups separated by ':' or '-'. */
    MAC,
    /** Dotted quad; "a.b.c.d/len" as a prefix. */
    IPV4,
    /** RFC 4291 text; "addr/len" as a prefix. */
    IPV6
}
