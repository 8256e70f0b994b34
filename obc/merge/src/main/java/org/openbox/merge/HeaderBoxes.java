package org.openbox.merge;

import java.util.List;
import java.util.Map;
import org.openbox.merge.core.HeaderAlgebra;
import org.openbox.merge.core.Rule;
import org.openbox.protocol.match.MatchField;
import org.openbox.protocol.match.Term;

/**
 * The header matches of a classifier's rules in a form that tests "do two rules meet?" on
 * longs: per rule, the fields it constrains (ascending) and, per field, its terms as
 * (kind, a, b) triples, masked (value, mask) or range (min, max). Fields wider than 63 bits
 * keep their BigInteger terms and are tested with {@link HeaderAlgebra}. Built once per
 * decision (each rule when first tested), so the pair tests of a product size cost a few
 * nanoseconds each.
 */
final class HeaderBoxes {
    private static final MatchField[] FIELDS = MatchField.values();
    /** All ones over each field's width, by ordinal (fields wider than 63 bits are WIDE and not looked up). */
    private static final long[] FULL = new long[FIELDS.length];

    static {
        for (MatchField f : FIELDS) FULL[f.ordinal()] = f.width() >= 63 ? Long.MAX_VALUE : (1L << f.width()) - 1;
    }

    private static final long MASKED = 0, RANGE = 1, WIDE = 2;

    private final int[][] fields; // per rule: field ordinals, ascending
    private final long[][][] terms; // per rule, per field position: kind, a, b, kind, a, b, ...
    private final List<Rule> rules;

    HeaderBoxes(List<Rule> rules) {
        this.rules = rules;
        fields = new int[rules.size()][];
        terms = new long[rules.size()][][];
    }

    /** Encodes rule r on first use (a decision often stops after a few rules of a large classifier). */
    private void encode(int r) {
        Map<MatchField, List<Term>> h = rules.get(r).header(); // an EnumMap: ascending ordinals
        int[] f = new int[h.size()];
        long[][] t = new long[h.size()][];
        int i = 0;
        for (Map.Entry<MatchField, List<Term>> e : h.entrySet()) {
            f[i] = e.getKey().ordinal();
            t[i] = encode(e.getKey(), e.getValue());
            i++;
        }
        terms[r] = t;
        fields[r] = f;
    }

    int size() {
        return fields.length;
    }

    private static long[] encode(MatchField f, List<Term> ts) {
        if (f.width() > 63) return new long[] {WIDE, 0, 0};
        long[] out = new long[ts.size() * 3];
        for (int k = 0; k < ts.size(); k++) {
            if (ts.get(k) instanceof Term.Masked m) {
                long mask = m.mask().longValue();
                out[3 * k] = MASKED;
                out[3 * k + 1] = m.value().longValue() & mask;
                out[3 * k + 2] = mask;
            } else {
                Term.Range g = (Term.Range) ts.get(k);
                out[3 * k] = RANGE;
                out[3 * k + 1] = g.min().longValue();
                out[3 * k + 2] = g.max().longValue();
            }
        }
        return out;
    }

    /** Whether rule i of {@code a} and rule j of {@code b} may match one packet (as {@link HeaderAlgebra#meets}). */
    static boolean meets(HeaderBoxes a, int i, HeaderBoxes b, int j) {
        if (a.fields[i] == null) a.encode(i);
        if (b.fields[j] == null) b.encode(j);
        int[] fa = a.fields[i], fb = b.fields[j];
        int x = 0, y = 0;
        while (x < fa.length && y < fb.length) {
            if (fa[x] < fb[y]) {
                x++;
            } else if (fa[x] > fb[y]) {
                y++;
            } else {
                long[] ta = a.terms[i][x], tb = b.terms[j][y];
                if (ta[0] == WIDE || tb[0] == WIDE) {
                    MatchField f = FIELDS[fa[x]];
                    if (!HeaderAlgebra.meets(
                            new Rule(Map.of(f, a.rules.get(i).header().get(f)), List.of(), false, List.of()),
                            new Rule(Map.of(f, b.rules.get(j).header().get(f)), List.of(), false, List.of())))
                        return false;
                } else if (!overlap(FULL[fa[x]], ta, tb)) {
                    return false;
                }
                x++;
                y++;
            }
        }
        return true;
    }

    /**
     * Whether every packet matching rule i of {@code a} matches rule j of {@code b}'s header
     * and patterns: exactly {@link HeaderAlgebra#covers}(b's rule j, a's rule i), on longs.
     */
    static boolean coveredBy(HeaderBoxes a, int i, HeaderBoxes b, int j) {
        Rule inner = a.rules.get(i), outer = b.rules.get(j);
        if (outer.header().size() > inner.header().size()) return false;
        if (!outer.patterns().isEmpty() || !inner.patterns().isEmpty()) return HeaderAlgebra.covers(outer, inner);
        if (a.fields[i] == null) a.encode(i);
        if (b.fields[j] == null) b.encode(j);
        int[] fi = a.fields[i], fo = b.fields[j];
        int x = 0;
        for (int y = 0; y < fo.length; y++) {
            while (x < fi.length && fi[x] < fo[y]) x++;
            if (x == fi.length || fi[x] != fo[y]) return false; // outer constrains a field inner does not
            long[] ti = a.terms[i][x], to = b.terms[j][y];
            if (ti[0] == WIDE || to[0] == WIDE) return HeaderAlgebra.covers(outer, inner);
            long full = FULL[fo[y]];
            for (int p = 0; p < ti.length; p += 3) {
                boolean in = false;
                for (int q = 0; q < to.length && !in; q += 3) {
                    in = subset(full, ti[p], ti[p + 1], ti[p + 2], to[q], to[q + 1], to[q + 2]);
                }
                if (!in) return false;
            }
            x++;
        }
        return true;
    }

    /** Term a within term b, as {@code HeaderAlgebra.subset} (false when unsure). */
    private static boolean subset(long full, long ka, long a1, long a2, long kb, long b1, long b2) {
        long lo, hi;
        if (ka == MASKED) {
            if (kb == MASKED) return (b2 & ~a2) == 0 && (a1 & b2) == (b1 & b2);
            lo = a1;
            hi = a1 | (full & ~a2);
        } else {
            lo = a1;
            hi = a2;
        }
        if (kb == RANGE) return b1 <= lo && b2 >= hi;
        if (lo == hi) return (lo & b2) == (b1 & b2);
        long free = full & ~b2;
        if (((free + 1) & free) != 0) return false; // not a prefix mask
        return b1 <= lo && (b1 | free) >= hi;
    }

    private static boolean overlap(long full, long[] ta, long[] tb) {
        if (ta.length == 3 && tb.length == 3) return overlap(full, ta[0], ta[1], ta[2], tb[0], tb[1], tb[2]);
        for (int p = 0; p < ta.length; p += 3) {
            for (int q = 0; q < tb.length; q += 3) {
                if (overlap(full, ta[p], ta[p + 1], ta[p + 2], tb[q], tb[q + 1], tb[q + 2])) return true;
            }
        }
        return false;
    }

    /** One term against another, as {@code HeaderAlgebra.overlaps} (true when unsure). */
    private static boolean overlap(long full, long ka, long a1, long a2, long kb, long b1, long b2) {
        if (ka == MASKED && kb == MASKED) return ((a1 ^ b1) & a2 & b2) == 0;
        if (ka == RANGE && kb == RANGE) return Math.max(a1, b1) <= Math.min(a2, b2);
        long value = ka == MASKED ? a1 : b1, mask = ka == MASKED ? a2 : b2;
        long min = ka == RANGE ? a1 : b1, max = ka == RANGE ? a2 : b2;
        long lo = value & mask, hi = lo | (full & ~mask);
        return max >= lo && min <= hi;
    }
}
