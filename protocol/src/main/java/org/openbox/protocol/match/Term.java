package org.openbox.protocol.match;

import java.math.BigInteger;

/** One alternative of a field's value: a masked value or an inclusive range. */
public sealed interface Term {
    boolean contains(BigInteger v);

    /** Matches v when {@code v & mask == value}; an exact value has the field's full mask. */
    record Masked(BigInteger value, BigInteger mask) implements Term {
        @Override
        public boolean contains(BigInteger v) {
            return v.and(mask).equals(value.and(mask));
        }
    }

    /** Matches min <= v <= max. */
    record Range(BigInteger min, BigInteger max) implements Term {
        @Override
        public boolean contains(BigInteger v) {
            return v.compareTo(min) >= 0 && v.compareTo(max) <= 0;
        }
    }
}
