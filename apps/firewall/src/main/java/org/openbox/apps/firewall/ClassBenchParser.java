package org.openbox.apps.firewall;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads ClassBench filter sets ({@code @sip/len dip/len splo : sphi dplo : dphi proto/mask
 * flags/mask}, one rule per line, first line = highest priority). ClassBench rules carry no
 * action, so every rule gets the given one. The flags field is not used for matching.
 * Full port ranges (0 : 65535) and the wildcard protocol (0x00/0x00) add no constraint;
 * ports are compared only for TCP and UDP packets.
 */
public final class ClassBenchParser {
    public Policy parse(List<String> lines, Action ruleAction, Action defaultAction) {
        return parse("rules", lines, ruleAction, defaultAction);
    }

    /** Parses the rules of file {@code source}; errors read {@code SOURCE:LINE: ...}. */
    public Policy parse(String source, List<String> lines, Action ruleAction, Action defaultAction) {
        List<FirewallRule> rules = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            try {
                rules.add(rule(rules.size(), i + 1, line, ruleAction));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        source + ":" + (i + 1) + ": not a ClassBench rule: " + e.getMessage(), e);
            }
        }
        return new Policy(rules, defaultAction);
    }

    private static FirewallRule rule(int index, int lineNo, String line, Action action) {
        if (!line.startsWith("@")) {
            throw new IllegalArgumentException("missing '@'");
        }
        String[] f = line.substring(1).split("\t");
        if (f.length < 5) {
            throw new IllegalArgumentException("expected at least 5 tab-separated fields");
        }
        MatchBuilder m = new MatchBuilder()
                .src(prefix(f[0]))
                .dst(prefix(f[1]))
                .sport(range(f[2]))
                .dport(range(f[3]));
        String[] proto = f[4].split("/");
        int value = Integer.decode(proto[0].strip());
        int mask = Integer.decode(proto[1].strip());
        if (mask == 0xff) {
            m.proto(value);
        } else if (mask != 0) {
            throw new IllegalArgumentException("protocol mask must be 0x00 or 0xFF");
        }
        return new FirewallRule(index, lineNo, action, m.build(), "classbench rule " + index);
    }

    private static final Pattern PREFIX = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}/\\d{1,2}");

    private static String prefix(String p) {
        String s = p.strip();
        if (!PREFIX.matcher(s).matches() || !FirewallRuleParser.validAddress(s)) {
            throw new IllegalArgumentException("bad prefix '" + s + "' (a.b.c.d/len, bytes 0-255, len 0-32)");
        }
        return s.endsWith("/0") ? null : s;
    }

    private static String range(String r) {
        String[] lohi = r.split(":");
        int lo = Integer.parseInt(lohi[0].strip());
        int hi = Integer.parseInt(lohi[1].strip());
        if (lo == 0 && hi == 65535) {
            return null;
        }
        return lo == hi ? Integer.toString(lo) : "[" + lo + ":" + hi + "]";
    }
}
