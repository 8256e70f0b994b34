package org.openbox.merge.core;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.openbox.protocol.match.MatchField;
import org.openbox.protocol.match.Term;

/**
 * Set algebra on the canonical header-match terms (masked values and ranges): intersection
 * of rules and a conservative subset test. Intersections stay exact: when the grammar cannot
 * write one (a range against a non-prefix mask that it partly overlaps, over too many values
 * to list) {@link Inexpressible} is thrown and the caller keeps the classifiers apart.
 */
public final class HeaderAlgebra {
    /** A partial overlap of a range and a non-prefix mask is listed value by value up to this many values. */
    static final int ENUMERATE_LIMIT = 64;

    private HeaderAlgebra() {}

    /** r1 AND r2 (header intersected per field, patterns concatenated, provenance joined). */
    public static Rule intersect(Rule r1, Rule r2) throws Inexpressible {
        if (r1.whole() != r2.whole()
                && !r1.patterns().isEmpty()
                && !r2.patterns().isEmpty()) {
            throw new Inexpressible("payload and whole-packet patterns cannot be joined");
        }
        Map<MatchField, List<Term>> h = new EnumMap<>(MatchField.class);
        h.putAll(r1.header());
        for (Map.Entry<MatchField, List<Term>> e : r2.header().entrySet()) {
            List<Term> mine = h.get(e.getKey());
            h.put(e.getKey(), mine == null ? e.getValue() : intersect(e.getKey(), mine, e.getValue()));
        }
        List<String> pats = new ArrayList<>(r1.patterns());
        pats.addAll(r2.patterns());
        boolean whole = r1.patterns().isEmpty() ? r2.whole() : r1.whole();
        return new Rule(h, pats, whole, Rule.union(r1.refs(), r2.refs()));
    }

    /**
     * Whether some packet may match both rules' headers, without building the intersection.
     * Exact except for a range partly overlapping a non-prefix mask, where it answers true
     * (an over-estimate: callers use it to count intersections).
     */
    public static boolean meets(Rule r1, Rule r2) {
        Map<MatchField, List<Term>> small = r1.header().size() <= r2.header().size() ? r1.header() : r2.header();
        Map<MatchField, List<Term>> other = small == r1.header() ? r2.header() : r1.header();
        for (Map.Entry<MatchField, List<Term>> e : small.entrySet()) {
            List<Term> b = other.get(e.getKey());
            if (b == null) continue;
            boolean any = false;
            for (Term x : e.getValue()) {
                for (Term y : b) {
                    if (overlaps(e.getKey(), x, y)) {
                        any = true;
                        break;
                    }
                }
                if (any) break;
            }
            if (!any) return false;
        }
        return true;
    }

    /** x AND y is not empty (true when unsure). */
    static boolean overlaps(MatchField f, Term x, Term y) {
        if (x instanceof Term.Masked a && y instanceof Term.Masked b) {
            return a.value().xor(b.value()).and(a.mask()).and(b.mask()).signum() == 0;
        }
        if (x instanceof Term.Range a && y instanceof Term.Range b) {
            return a.min().max(b.min()).compareTo(a.max().min(b.max())) <= 0;
        }
        Term.Masked m = (Term.Masked) (x instanceof Term.Masked ? x : y);
        Term.Range r = (Term.Range) (x instanceof Term.Range ? x : y);
        BigInteger lo = m.value().and(m.mask());
        BigInteger hi = lo.or(f.fullMask().andNot(m.mask()));
        return r.max().compareTo(lo) >= 0 && r.min().compareTo(hi) <= 0;
    }

    /** Union a AND union b, as a union of terms (empty list = no value). */
    public static List<Term> intersect(MatchField f, List<Term> a, List<Term> b) throws Inexpressible {
        List<Term> out = new ArrayList<>();
        for (Term x : a) {
            for (Term y : b) {
                List<Term> t = intersect(f, x, y);
                for (Term z : t) if (!out.contains(z)) out.add(z);
            }
        }
        return out;
    }

    /** x AND y as a (usually single-term) union; empty when disjoint. */
    static List<Term> intersect(MatchField f, Term x, Term y) throws Inexpressible {
        BigInteger full = f.fullMask();
        if (x instanceof Term.Masked a && y instanceof Term.Masked b) {
            BigInteger va = a.value().and(a.mask()), vb = b.value().and(b.mask());
            if (!va.xor(vb).and(a.mask()).and(b.mask()).equals(BigInteger.ZERO)) return List.of();
            return List.of(new Term.Masked(va.or(vb), a.mask().or(b.mask())));
        }
        if (x instanceof Term.Range a && y instanceof Term.Range b) {
            return range(a.min().max(b.min()), a.max().min(b.max()), full);
        }
        Term.Masked m = (Term.Masked) (x instanceof Term.Masked ? x : y);
        Term.Range r = (Term.Range) (x instanceof Term.Range ? x : y);
        BigInteger lo = m.value().and(m.mask());
        BigInteger free = full.andNot(m.mask());
        BigInteger hi = lo.or(free);
        if (r.min().compareTo(lo) <= 0 && r.max().compareTo(hi) >= 0) return List.of(m); // range covers all
        if (r.max().compareTo(lo) < 0 || r.min().compareTo(hi) > 0) return List.of(); // disjoint spans
        if (isLowOnes(free)) { // prefix: a span
            return range(lo.max(r.min()), hi.min(r.max()), full);
        }
        BigInteger cLo = lo.max(r.min()), cHi = hi.min(r.max());
        if (cHi.subtract(cLo).compareTo(BigInteger.valueOf(ENUMERATE_LIMIT)) < 0) {
            List<Term> out = new ArrayList<>();
            for (BigInteger v = cLo; v.compareTo(cHi) <= 0; v = v.add(BigInteger.ONE)) {
                if (m.contains(v)) out.add(new Term.Masked(v, full));
            }
            return out;
        }
        throw new Inexpressible(
                f + ": range [" + r.min().toString(16) + ":" + r.max().toString(16)
                        + "] partly overlaps non-prefix mask " + m.mask().toString(16));
    }

    private static List<Term> range(BigInteger lo, BigInteger hi, BigInteger full) {
        int c = lo.compareTo(hi);
        if (c > 0) return List.of();
        if (c == 0) return List.of(new Term.Masked(lo, full));
        return List.of(new Term.Range(lo, hi));
    }

    /** v == 2^k - 1 for some k >= 0. */
    static boolean isLowOnes(BigInteger v) {
        return v.add(BigInteger.ONE).and(v).signum() == 0;
    }

    /** Conservative: true only if every packet matching {@code inner} matches {@code outer}. */
    public static boolean covers(Rule outer, Rule inner) {
        if (outer.header().size() > inner.header().size()) return false;
        if (!outer.patterns().isEmpty()) {
            if (outer.whole() != inner.whole() || !inner.patterns().containsAll(outer.patterns())) return false;
        }
        for (Map.Entry<MatchField, List<Term>> e : outer.header().entrySet()) {
            List<Term> in = inner.header().get(e.getKey());
            if (in == null) return false;
            if (in.equals(e.getValue())) continue; // common after intersections: no set work
            for (Term t : in) {
                boolean ok = false;
                for (Term o : e.getValue()) {
                    if (subset(e.getKey(), t, o)) {
                        ok = true;
                        break;
                    }
                }
                if (!ok) return false;
            }
        }
        return true;
    }

    /** Term a is a subset of term b (conservative). */
    static boolean subset(MatchField f, Term a, Term b) {
        BigInteger full = f.fullMask();
        BigInteger aLo, aHi;
        if (a instanceof Term.Masked ma) {
            if (b instanceof Term.Masked mb) {
                return mb.mask().andNot(ma.mask()).signum() == 0
                        && ma.value().and(mb.mask()).equals(mb.value().and(mb.mask()));
            }
            aLo = ma.value().and(ma.mask());
            aHi = aLo.or(full.andNot(ma.mask()));
        } else {
            Term.Range ra = (Term.Range) a;
            aLo = ra.min();
            aHi = ra.max();
        }
        if (b instanceof Term.Range rb) {
            return rb.min().compareTo(aLo) <= 0 && rb.max().compareTo(aHi) >= 0;
        }
        Term.Masked mb = (Term.Masked) b;
        if (aLo.equals(aHi)) return mb.contains(aLo);
        BigInteger free = full.andNot(mb.mask());
        if (!isLowOnes(free)) return false;
        BigInteger lo = mb.value().and(mb.mask());
        return lo.compareTo(aLo) <= 0 && lo.or(free).compareTo(aHi) >= 0;
    }
}
