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
    private static final long MASKED = 0, RANGE = 1, WIDE = 2;

    private final int[][] fields;     // per rule: field ordinals, ascending
    private final long[][][] terms;   // per rule, per field position: kind, a, b, kind, a, b, ...
    private final List<Rule> rules;

    HeaderBoxes(List<Rule> rules) {
        this.rules = rules;
        fields = new int[rules.size()][];
        terms = new long[rules.size()][][];
    }

    /** Encodes rule r on first use (a decision often stops after a few rules of a large classifier). */
    private void encode(int r) {
        Map<MatchField, List<Term>> h = rules.get(r).header();     // an EnumMap: ascending ordinals
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
                    if (!HeaderAlgebra.meets(new Rule(Map.of(f, a.rules.get(i).header().get(f)), List.of(), false, List.of()),
                            new Rule(Map.of(f, b.rules.get(j).header().get(f)), List.of(), false, List.of()))) return false;
                } else if (!overlap(FIELDS[fa[x]], ta, tb)) {
                    return false;
                }
                x++;
                y++;
            }
        }
        return true;
    }

    private static boolean overlap(MatchField f, long[] ta, long[] tb) {
        long full = f.width() == 63 ? Long.MAX_VALUE : (1L << f.width()) - 1;
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
