package org.openbox.apps.firewall;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the firewall's own rule format, one rule per line, first match wins:
 *
 * <pre>
 * ACTION [proto tcp|udp|icmp|N] [src ADDR[/LEN]] [dst ADDR[/LEN]] [sport PORTS] [dport PORTS] [msg "TEXT"]
 * default allow|drop
 * </pre>
 *
 * ACTION is allow, drop or alert; PORTS is a number, LO:HI, or a comma list of both.
 * Errors read {@code SOURCE:LINE: what is wrong}, naming the word that is wrong.
 */
public final class FirewallRuleParser {
    private static final Pattern TOKEN = Pattern.compile("\"([^\"]*)\"|(\\S+)");
    private static final Pattern ADDRESS = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}(/\\d{1,2})?");
    private static final Pattern PORT = Pattern.compile("\\d{1,5}(:\\d{1,5})?");

    /** Parses rules whose errors name the line only ({@code rules:LINE: ...}). */
    public Policy parse(List<String> lines) {
        return parse("rules", lines);
    }

    /** Parses the rules of file {@code source} (used in error messages). */
    public Policy parse(String source, List<String> lines) {
        List<FirewallRule> rules = new ArrayList<>();
        Action defaultAction = Action.ALLOW;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                List<String> words = tokens(line);
                if (words.get(0).equals("default")) {
                    if (words.size() != 2) {
                        throw new IllegalArgumentException("'default' takes one action");
                    }
                    defaultAction = Action.parse(words.get(1));
                    if (defaultAction == Action.ALERT) {
                        throw new IllegalArgumentException("the default action is allow or drop");
                    }
                    continue;
                }
                rules.add(rule(rules.size(), i + 1, line, words));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(source + ":" + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return new Policy(rules, defaultAction);
    }

    private static FirewallRule rule(int index, int lineNo, String line, List<String> w) {
        Action action = Action.parse(w.get(0));
        MatchBuilder m = new MatchBuilder();
        String msg = null;
        for (int k = 1; k < w.size(); k += 2) {
            String key = w.get(k);
            if (k + 1 >= w.size()) {
                throw new IllegalArgumentException("'" + key + "' needs a value");
            }
            String v = w.get(k + 1);
            switch (key) {
                case "proto" -> m.proto(protocol(v));
                case "src" -> m.src(address(v));
                case "dst" -> m.dst(address(v));
                case "sport" -> m.sport(ports(v));
                case "dport" -> m.dport(ports(v));
                case "msg" -> msg = v;
                default -> throw new IllegalArgumentException("unknown keyword '" + key + "'");
            }
        }
        return new FirewallRule(index, lineNo, action, m.build(), msg != null ? msg : line);
    }

    private static List<String> tokens(String line) {
        List<String> out = new ArrayList<>();
        Matcher t = TOKEN.matcher(line);
        while (t.find()) {
            out.add(t.group(1) != null ? t.group(1) : t.group(2));
        }
        return out;
    }

    static Integer protocol(String v) {
        return switch (v.toLowerCase()) {
            case "tcp" -> 6;
            case "udp" -> 17;
            case "icmp" -> 1;
            case "any" -> null;
            default -> {
                try {
                    int p = Integer.parseInt(v);
                    if (p < 0 || p > 255) {
                        throw new NumberFormatException();
                    }
                    yield p;
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("bad protocol '" + v + "' (tcp, udp, icmp, any or 0-255)");
                }
            }
        };
    }

    private static String address(String v) {
        if (v.equals("any")) {
            return null;
        }
        if (!ADDRESS.matcher(v).matches() || !validAddress(v)) {
            throw new IllegalArgumentException(
                    "bad address '" + v + "' (a.b.c.d or a.b.c.d/len, bytes 0-255, len 0-32)");
        }
        return v;
    }

    /** Whether dotted-quad {@code v} (already shaped a.b.c.d[/len]) has bytes 0-255 and len 0-32. */
    static boolean validAddress(String v) {
        String[] addrLen = v.split("/");
        for (String octet : addrLen[0].split("\\.")) {
            if (octet.length() > 3 || Integer.parseInt(octet) > 255) {
                return false;
            }
        }
        return addrLen.length == 1 || (addrLen[1].length() <= 2 && Integer.parseInt(addrLen[1]) <= 32);
    }

    private static String ports(String v) {
        if (v.equals("any")) {
            return null;
        }
        List<String> items = new ArrayList<>();
        for (String p : v.split(",")) {
            if (!PORT.matcher(p).matches()) {
                throw new IllegalArgumentException("bad ports '" + v + "' (N, LO:HI or a comma list)");
            }
            String[] lohi = p.split(":");
            for (String x : lohi) {
                if (Integer.parseInt(x) > 65535) {
                    throw new IllegalArgumentException("port " + x + " is above 65535");
                }
            }
            if (lohi.length == 2 && Integer.parseInt(lohi[0]) > Integer.parseInt(lohi[1])) {
                throw new IllegalArgumentException("empty port range '" + p + "'");
            }
            items.add(lohi.length == 2 ? "[" + p + "]" : p);
        }
        return items.size() == 1 ? items.get(0) : "[" + String.join(",", items) + "]";
    }
}
