package org.openbox.apps.ips;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Parses Snort 2.9 rules into {@link SnortRule}s for the IPS.
 *
 * <p>The header (protocol, addresses, ports, direction) becomes OpenBox header matches.
 * {@code content} (with {@code nocase}, {@code offset}/{@code depth},
 * {@code distance}/{@code within}, the {@code http_*} buffers) and {@code pcre} become
 * regexes over the L4 payload, one regex per chain of relative items; a packet matches
 * when all regexes of the rule match. HTTP buffers are approximated on the raw request:
 * {@code http_uri} means "inside the request target", {@code http_header} "on a header
 * line", {@code http_client_body} "after the blank line". Options the matcher cannot
 * honour (byte_test, flowbits, negated content, look-around in pcre, ...) make the rule
 * skipped with the reason; nothing is dropped silently.
 */
public final class SnortRuleParser {
    /** Options with no effect on what matches (metadata) or honoured through the header. */
    private static final Set<String> IGNORED = Set.of(
            "msg",
            "sid",
            "rev",
            "gid",
            "classtype",
            "priority",
            "reference",
            "metadata",
            "fast_pattern",
            "flow",
            "rawbytes",
            "service",
            "tag");

    private static final Set<String> CONTENT_MODIFIERS = Set.of(
            "nocase",
            "offset",
            "depth",
            "distance",
            "within",
            "http_uri",
            "http_raw_uri",
            "http_header",
            "http_raw_header",
            "http_cookie",
            "http_raw_cookie",
            "http_client_body",
            "http_method",
            "http_stat_code",
            "http_stat_msg");
    private static final Set<String> ACTIONS = Set.of("alert", "log", "pass", "drop", "reject", "sdrop");
    /** Regex constructs the payload matcher (Hyperscan) does not support. */
    private static final Pattern UNSUPPORTED_REGEX =
            Pattern.compile("\\(\\?[=!]|\\(\\?<[=!]|\\(\\?>|\\(\\?\\(|\\(\\?R|\\(\\?P=|\\\\[1-9]|\\\\k[<{']|\\\\G|\\\\C"
                    + "|[*+?}]\\+");

    /** Deepest nesting of [lists] and variables in an address or port spec. */
    static final int MAX_LIST_DEPTH = 64;

    private final SnortVariables vars;

    public SnortRuleParser(SnortVariables vars) {
        this.vars = vars;
    }

    /** What a rule file yields: the rules the IPS runs and the ones it skipped, with reasons. */
    public record Result(List<SnortRule> rules, List<SkippedRule> skipped) {}

    public Result parse(List<String> lines) {
        List<SnortRule> rules = new ArrayList<>();
        List<SkippedRule> skipped = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                rules.add(parseRule(i + 1, line));
            } catch (Unsupported e) {
                skipped.add(new SkippedRule(i + 1, e.sid, e.getMessage()));
            }
        }
        return new Result(rules, skipped);
    }

    /** Thrown for a rule that cannot be expressed; carries its sid when known. */
    static final class Unsupported extends Exception {
        long sid;

        Unsupported(String reason) {
            super(reason);
        }
    }

    SnortRule parseRule(int lineNo, String line) throws Unsupported {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open < 0 || close < open) {
            throw new Unsupported("not a rule: no option list in parentheses");
        }
        List<Option> options = splitOptions(line.substring(open + 1, close));
        long sid = 0;
        for (Option o : options) {
            if (o.name.equals("sid")) {
                sid = parseLong(o.value, "sid");
            }
        }
        try {
            return build(lineNo, line.substring(0, open).strip().split("\\s+"), options, sid);
        } catch (Unsupported e) {
            e.sid = sid;
            throw e;
        }
    }

    private SnortRule build(int lineNo, String[] header, List<Option> options, long sid) throws Unsupported {
        if (header.length != 7) {
            throw new Unsupported("header must be: action proto src sport dir dst dport");
        }
        String action = header[0];
        if (!ACTIONS.contains(action)) {
            throw new Unsupported("unknown action '" + action + "'");
        }
        String msg = "";
        int rev = 0;
        int priority = 0;
        PayloadBuilder payload = new PayloadBuilder();
        for (Option o : options) {
            switch (o.name) {
                case "msg" -> msg = unquote(o.value);
                case "rev" -> rev = (int) parseLong(o.value, "rev");
                case "priority" -> priority = (int) parseLong(o.value, "priority");
                case "content", "uricontent" -> {
                    payload.content(o.value);
                    if (o.name.equals("uricontent")) {
                        payload.modifier("http_uri", null);
                    }
                }
                case "pcre" -> payload.pcre(o.value);
                case "isdataat" -> payload.isdataat(o.value);
                case "urilen" -> payload.urilen(o.value);
                case "file_data" -> payload.fileData(o.value);
                default -> {
                    if (CONTENT_MODIFIERS.contains(o.name)) {
                        payload.modifier(o.name, o.value);
                    } else if (!IGNORED.contains(o.name)) {
                        throw new Unsupported("option '" + o.name + "' is not supported");
                    }
                }
            }
        }
        List<Map<String, String>> headers = headerMatches(header);
        return new SnortRule(lineNo, action, sid, rev, msg, priority, headers, payload.build());
    }

    // ------------------------------------------------------------------ header

    private List<Map<String, String>> headerMatches(String[] h) throws Unsupported {
        String proto = h[1].toLowerCase();
        Integer ipProto =
                switch (proto) {
                    case "tcp" -> 6;
                    case "udp" -> 17;
                    case "icmp" -> 1;
                    case "ip" -> null;
                    default -> throw new Unsupported("protocol '" + proto + "' is not supported");
                };
        String dir = h[4];
        if (!dir.equals("->") && !dir.equals("<>")) {
            throw new Unsupported("direction '" + dir + "' is not supported");
        }
        List<Map<String, String>> out = new ArrayList<>();
        out.add(oneWay(ipProto, h[2], h[3], h[5], h[6]));
        if (dir.equals("<>")) {
            out.add(oneWay(ipProto, h[5], h[6], h[2], h[3]));
        }
        return out;
    }

    private Map<String, String> oneWay(Integer ipProto, String src, String sport, String dst, String dport)
            throws Unsupported {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("ETH_TYPE", "0x0800");
        if (ipProto != null) {
            m.put("IP_PROTO", Integer.toString(ipProto));
        }
        putAddress(m, "IPV4_SRC", src);
        putAddress(m, "IPV4_DST", dst);
        String portField = ipProto == null ? null : ipProto == 6 ? "TCP" : ipProto == 17 ? "UDP" : null;
        putPorts(m, portField, "_SRC", sport);
        putPorts(m, portField, "_DST", dport);
        return m;
    }

    private void putAddress(Map<String, String> m, String field, String spec) throws Unsupported {
        List<String> items = new ArrayList<>();
        if (expand(spec, items)) {
            return; // any
        }
        for (String a : items) {
            if (!a.matches("\\d+\\.\\d+\\.\\d+\\.\\d+(/\\d+)?")) {
                throw new Unsupported("address '" + a + "' is not supported");
            }
        }
        m.put(field, items.size() == 1 ? items.get(0) : "[" + String.join(",", items) + "]");
    }

    private void putPorts(Map<String, String> m, String protoPrefix, String suffix, String spec) throws Unsupported {
        List<String> items = new ArrayList<>();
        if (expand(spec, items)) {
            return;
        }
        if (protoPrefix == null) {
            throw new Unsupported("ports given for a protocol without ports");
        }
        List<String> values = new ArrayList<>();
        for (String p : items) {
            if (p.matches("\\d+")) {
                values.add(p);
            } else if (p.matches("\\d*:\\d*") && !p.equals(":")) {
                values.add("[" + p + "]");
            } else {
                throw new Unsupported("port '" + p + "' is not supported");
            }
        }
        m.put(protoPrefix + suffix, values.size() == 1 ? values.get(0) : "[" + String.join(",", values) + "]");
    }

    /**
     * Flattens an address or port spec (variables, nested lists) into {@code out}.
     * Returns true when the spec admits everything ("any").
     */
    private boolean expand(String spec, List<String> out) throws Unsupported {
        return expand(spec, out, 0);
    }

    private boolean expand(String spec, List<String> out, int depth) throws Unsupported {
        if (depth > MAX_LIST_DEPTH) {
            throw new Unsupported("address or port list nested more than " + MAX_LIST_DEPTH + " deep");
        }
        spec = spec.strip();
        if (spec.startsWith("!")) {
            throw new Unsupported("negated address or port '" + spec + "' is not supported");
        }
        if (spec.equals("any")) {
            return true;
        }
        if (spec.startsWith("$")) {
            String name = spec.substring(1);
            String value;
            try {
                value = vars.get(name).orElseThrow(() -> new Unsupported("undefined variable $" + name));
            } catch (IllegalArgumentException e) {
                throw new Unsupported(e.getMessage());
            }
            return expand(value, out, depth + 1);
        }
        if (spec.startsWith("[") && spec.endsWith("]")) {
            boolean any = false;
            for (String part : splitTopLevel(spec.substring(1, spec.length() - 1))) {
                any |= expand(part, out, depth + 1);
            }
            return any;
        }
        out.add(spec);
        return false;
    }

    private static List<String> splitTopLevel(String s) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(s.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(s.substring(start));
        return parts;
    }

    // ------------------------------------------------------------------ options

    record Option(String name, String value) {}

    /** Splits "a:1; b:\"x;y\"; c;" into options, honouring quotes and backslash escapes. */
    static List<Option> splitOptions(String body) {
        List<Option> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\\' && i + 1 < body.length()) {
                cur.append(c).append(body.charAt(++i));
            } else if (c == '"') {
                quoted = !quoted;
                cur.append(c);
            } else if (c == ';' && !quoted) {
                addOption(out, cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        addOption(out, cur.toString());
        return out;
    }

    private static void addOption(List<Option> out, String text) {
        String t = text.strip();
        if (t.isEmpty()) {
            return;
        }
        int colon = t.indexOf(':');
        out.add(
                colon < 0
                        ? new Option(t.toLowerCase(), null)
                        : new Option(
                                t.substring(0, colon).strip().toLowerCase(),
                                t.substring(colon + 1).strip()));
    }

    static String unquote(String v) {
        if (v == null) {
            return "";
        }
        String s = v.strip();
        if (s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"")) {
            s = s.substring(1, s.length() - 1);
        }
        return s.replaceAll("\\\\([\"\\\\;:])", "$1");
    }

    private static long parseLong(String v, String what) throws Unsupported {
        try {
            return Long.parseLong(v == null ? "" : v.strip());
        } catch (NumberFormatException e) {
            throw new Unsupported("bad " + what + " '" + v + "'");
        }
    }

    static boolean regexSupported(String re) {
        return !UNSUPPORTED_REGEX.matcher(re).find();
    }
}
