package org.openbox.merge;

import java.util.List;
import org.openbox.merge.core.HeaderAlgebra;
import org.openbox.merge.core.Rule;

/**
 * The size of the product of a classifier C1 with the copies of C2 its outputs lead to,
 * counted on the real intersections: rule r1 of such an output becomes one rule per C2 rule
 * whose header meets r1's, then a fallback r1 (C2's "no match"), unless a C2 rule covers r1
 * (the rules after it and the fallback are unreachable). The other rules of C1 stay.
 * Counting stops as soon as the size exceeds the limit or the work budget is spent, so
 * deciding costs at most {@link #WORK} pair tests whatever the sizes of C1 and C2.
 *
 * @param rules       rules counted so far (the exact size when {@code within})
 * @param within      the product has at most the limit's rules
 * @param outOfBudget counting stopped on the work budget before a decision
 */
record ProductSize(long rules, boolean within, boolean outOfBudget) {
    /**
     * A product of at most this many rules is made even when it is larger than the two
     * classifiers apart: its lookup costs no more than one small classifier's (one 64-bit
     * word per field in a bit-vector classifier), and the packet is classified once with
     * no second block to visit.
     */
    static final long SMALL = 64;

    /** Rule pairs tested at most per decision. */
    static final long WORK = 200_000;

    static ProductSize count(Node c1, List<Integer> outputs, List<Node> copies, long limit) {
        long size = (long) c1.rules.size() - outputs.size();
        long work = 0;
        HeaderBoxes first = new HeaderBoxes(c1.rules);
        java.util.IdentityHashMap<List<Rule>, HeaderBoxes> seconds = new java.util.IdentityHashMap<>();
        for (int o = 0; o < outputs.size(); o++) {
            int i = outputs.get(o);
            Rule r1 = c1.rules.get(i);
            List<Rule> r2 = copies.get(o).rules;
            HeaderBoxes second = seconds.computeIfAbsent(r2, HeaderBoxes::new);
            boolean covered = false;
            for (int j = 0; j < r2.size(); j++) {
                if (++work > WORK) return new ProductSize(size, false, true);
                if (!HeaderBoxes.meets(first, i, second, j)) continue;
                if (++size > limit) return new ProductSize(size, false, false);
                Rule r = r2.get(j);
                if (r.patterns().isEmpty() && HeaderAlgebra.covers(r, r1)) {
                    covered = true;
                    break;
                }
            }
            if (!covered && ++size > limit) return new ProductSize(size, false, false);
        }
        return new ProductSize(size, true, false);
    }
}
