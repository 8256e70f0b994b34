package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.openbox.merge.core.HeaderAlgebra;
import org.openbox.merge.core.Rule;
import org.openbox.protocol.match.MatchField;
import org.openbox.protocol.match.Term;

/** The long-based cover test answers as HeaderAlgebra.covers on every pair of random rules. */
class HeaderBoxesTest {
    private static final MatchField[] FIELDS = {
        MatchField.ETH_TYPE,
        MatchField.IP_PROTO,
        MatchField.IPV4_SRC,
        MatchField.TCP_DST,
        MatchField.VLAN_VID,
        MatchField.IPV6_SRC
    };

    private static BigInteger big(long v) {
        return BigInteger.valueOf(v);
    }

    /** Masked (prefix or not) and range terms over a small part of each field, so covers often holds. */
    private static Term term(Random r, MatchField f) {
        int w = Math.min(f.width(), 16);
        long full = (1L << w) - 1;
        long v = r.nextInt(8) == 0 ? 0 : r.nextLong() & full & 0xf0f;
        switch (r.nextInt(4)) {
            case 0:
                return new Term.Masked(big(v), f.fullMask());
            case 1: {
                int len = r.nextInt(w + 1);
                BigInteger m = f.fullMask().shiftRight(f.width() - len).shiftLeft(f.width() - len);
                return new Term.Masked(big(v).shiftLeft(f.width() - w).and(m), m);
            }
            case 2: {
                BigInteger m = big(r.nextLong() & full & 0xff3);
                return new Term.Masked(big(v).and(m), m);
            }
            default: {
                long a = v, b = v + r.nextInt(0x300);
                return new Term.Range(big(a), big(Math.min(b, full)).max(big(a)));
            }
        }
    }

    private static Rule rule(Random r) {
        Map<MatchField, List<Term>> h = new EnumMap<>(MatchField.class);
        for (MatchField f : FIELDS) {
            if (r.nextInt(3) == 0 || (f == MatchField.IPV6_SRC && r.nextInt(4) != 0)) continue;
            List<Term> ts = new ArrayList<>();
            int n = 1 + (r.nextInt(4) == 0 ? r.nextInt(3) : 0);
            for (int i = 0; i < n; i++) ts.add(term(r, f));
            h.put(f, ts);
        }
        List<String> pats = r.nextInt(10) == 0 ? List.of("GET") : List.of();
        return new Rule(h, pats, false, List.of());
    }

    @Test
    void coveredByAnswersAsHeaderAlgebra() {
        Random r = new Random(11);
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            Rule x = rule(r);
            rules.add(x);
            if (r.nextInt(3) == 0) rules.add(x); // equal rules cover each other
        }
        HeaderBoxes boxes = new HeaderBoxes(rules);
        int covered = 0;
        for (int i = 0; i < rules.size(); i++) {
            for (int j = 0; j < rules.size(); j++) {
                boolean want = HeaderAlgebra.covers(rules.get(j), rules.get(i));
                assertEquals(want, HeaderBoxes.coveredBy(boxes, i, boxes, j), rules.get(j) + " covers " + rules.get(i));
                if (want) covered++;
            }
        }
        assertTrue(covered > rules.size() * 2, covered + " covering pairs");
    }
}
