package org.openbox.apps.firewall;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.match.FieldMatch;
import org.openbox.protocol.match.HeaderMatch;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;
import org.openbox.protocol.match.Term;

/**
 * The firewall's translation of the 4560-rule ClassBench set, evaluated with the
 * protocol's header-match semantics, picks the same first rule for every header of the
 * ClassBench trace as the reference first-match file.
 *
 * <p>The parsed terms are evaluated on longs for speed (every field here is at most 32 bits
 * wide); for the first headers of the trace the result is also computed with the protocol's
 * own {@link FieldMatch#contains}, so the two evaluations are checked to agree.
 */
class ClassBenchFirstMatchTest {
    private static final int CROSS_CHECKED = 500;
    private static final MatchField[] FIELDS = MatchField.values();

    @Test
    void translatedRulesGiveTheReferenceFirstMatch() throws Exception {
        Path data = Path.of(System.getProperty("openbox.data", "../../../shared/data"));
        Policy policy = new ClassBenchParser()
                .parse(Files.readAllLines(data.resolve("fw-4560.classbench")), Action.ALLOW, Action.DROP);
        ObjectMapper json = new ObjectMapper();
        List<List<HeaderMatch>> rules = new ArrayList<>();
        List<List<FastMatch>> fast = new ArrayList<>();
        for (FirewallRule r : policy.rules()) {
            List<HeaderMatch> alternatives = new ArrayList<>();
            List<FastMatch> fastAlternatives = new ArrayList<>();
            for (Map<String, String> m : r.matches()) {
                HeaderMatch hm = HeaderMatchParser.parse(json.valueToTree(m));
                alternatives.add(hm);
                fastAlternatives.add(FastMatch.of(hm));
            }
            rules.add(alternatives);
            fast.add(fastAlternatives);
        }
        List<String> trace = Files.readAllLines(data.resolve("fw-4560.trace"));
        List<String> expected = Files.readAllLines(data.resolve("fw-4560.trace.firstmatch"));
        int checked = 0;
        for (int i = 0; i < trace.size(); i++) {
            String[] t = trace.get(i).split("\t");
            Map<MatchField, BigInteger> packet = new EnumMap<>(MatchField.class);
            int proto = Integer.parseInt(t[4]);
            packet.put(MatchField.ETH_TYPE, BigInteger.valueOf(0x0800));
            packet.put(MatchField.IP_PROTO, BigInteger.valueOf(proto));
            packet.put(MatchField.IPV4_SRC, new BigInteger(t[0]));
            packet.put(MatchField.IPV4_DST, new BigInteger(t[1]));
            if (proto == 6 || proto == 17) {
                packet.put(proto == 6 ? MatchField.TCP_SRC : MatchField.UDP_SRC, new BigInteger(t[2]));
                packet.put(proto == 6 ? MatchField.TCP_DST : MatchField.UDP_DST, new BigInteger(t[3]));
            }
            long[] values = new long[FIELDS.length];
            boolean[] present = new boolean[FIELDS.length];
            packet.forEach((f, v) -> {
                values[f.ordinal()] = v.longValueExact();
                present[f.ordinal()] = true;
            });
            int want = Integer.parseInt(expected.get(i).split("\t")[0]);
            int got = firstFastMatch(fast, values, present);
            assertEquals(want, got, "trace line " + (i + 1));
            if (i < CROSS_CHECKED) {
                assertEquals(got, firstMatch(rules, packet), "protocol evaluation, trace line " + (i + 1));
            }
            checked++;
        }
        System.out.printf("fw-4560: first match agrees on %d trace headers%n", checked);
    }

    private static int firstMatch(List<List<HeaderMatch>> rules, Map<MatchField, BigInteger> packet) {
        for (int r = 0; r < rules.size(); r++) {
            for (HeaderMatch m : rules.get(r)) {
                if (matches(m, packet)) {
                    return r;
                }
            }
        }
        return -1;
    }

    private static boolean matches(HeaderMatch m, Map<MatchField, BigInteger> packet) {
        for (FieldMatch f : m.fields().values()) {
            BigInteger v = packet.get(f.field());
            if (v == null || !f.contains(v)) {
                return false;
            }
        }
        return true;
    }

    private static int firstFastMatch(List<List<FastMatch>> rules, long[] values, boolean[] present) {
        for (int r = 0; r < rules.size(); r++) {
            for (FastMatch m : rules.get(r)) {
                if (m.matches(values, present)) {
                    return r;
                }
            }
        }
        return -1;
    }

    /**
     * A header match with its terms as longs: per field, masked terms (v & mask == value)
     * and ranges (lo <= v <= hi), exactly as {@link Term} defines them.
     */
    private record FastMatch(int[] fields, long[][] masked, long[][] ranges) {
        static FastMatch of(HeaderMatch hm) {
            int n = hm.fields().size();
            int[] fields = new int[n];
            long[][] masked = new long[n][];
            long[][] ranges = new long[n][];
            int k = 0;
            for (FieldMatch f : hm.fields().values()) {
                fields[k] = f.field().ordinal();
                List<Long> m = new ArrayList<>();
                List<Long> r = new ArrayList<>();
                for (Term t : f.terms()) {
                    if (t instanceof Term.Masked mt) {
                        m.add(mt.value().and(mt.mask()).longValueExact());
                        m.add(mt.mask().longValueExact());
                    } else if (t instanceof Term.Range rt) {
                        r.add(rt.min().longValueExact());
                        r.add(rt.max().longValueExact());
                    }
                }
                masked[k] = m.stream().mapToLong(Long::longValue).toArray();
                ranges[k] = r.stream().mapToLong(Long::longValue).toArray();
                k++;
            }
            return new FastMatch(fields, masked, ranges);
        }

        boolean matches(long[] values, boolean[] present) {
            for (int k = 0; k < fields.length; k++) {
                int f = fields[k];
                if (!present[f] || !contains(k, values[f])) {
                    return false;
                }
            }
            return true;
        }

        private boolean contains(int k, long v) {
            long[] m = masked[k];
            for (int i = 0; i < m.length; i += 2) {
                if ((v & m[i + 1]) == m[i]) {
                    return true;
                }
            }
            long[] r = ranges[k];
            for (int i = 0; i < r.length; i += 2) {
                if (v >= r[i] && v <= r[i + 1]) {
                    return true;
                }
            }
            return false;
        }
    }
}
