package org.openbox.controller.management;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One-line, human-readable forms of classifier rules as applications write them: a header
 * match ({@code {"ETH_TYPE": "0x0800", "IP_PROTO": "6", "TCP_DST": "22"}} reads
 * {@code tcp dst_port 22}), a header-and-payload match ({@code tcp dst_port 80 content "cmd.exe"}),
 * a payload pattern ({@code /a+b/}). Labels are cut at {@link #MAX_LENGTH} characters and
 * at most {@link #MAX_TERMS} fields or patterns are read, so a huge rule stays one short line.
 */
final class RuleLabels {

    static final int MAX_LENGTH = 160;
    static final int MAX_TERMS = 32;

    private static final Map<String, String> PROTOCOLS = Map.of("1", "icmp", "6", "tcp", "17", "udp", "58", "icmpv6");

    private RuleLabels() {}

    /** The label of rule {@code match} of a block of {@code type}, followed by {@code -> target} when known. */
    static String label(String type, JsonNode match, String target) {
        String what =
                switch (type) {
                    case "HeaderClassifier" -> header(match);
                    case "HeaderPayloadClassifier" -> headerPayload(match);
                    case "RegexClassifier", "ContentClassifier" -> pattern(match, "RegexClassifier".equals(type));
                    default -> compact(match);
                };
        String line = target == null ? what : what + " -> " + target;
        return line.length() <= MAX_LENGTH ? line : line.substring(0, MAX_LENGTH - 1) + "…";
    }

    private static String header(JsonNode match) {
        if (match == null || !match.isObject()) {
            return compact(match);
        }
        String proto = null;
        List<String> terms = new ArrayList<>();
        Iterator<Map.Entry<String, JsonNode>> fields = match.fields();
        for (int n = 0; fields.hasNext() && n < MAX_TERMS; n++) {
            Map.Entry<String, JsonNode> f = fields.next();
            String key = f.getKey().toLowerCase(Locale.ROOT);
            String value = f.getValue().isTextual()
                    ? f.getValue().asText()
                    : f.getValue().toString();
            switch (key) {
                case "eth_type" -> {
                    if (!isIpv4(value)) {
                        terms.add("eth_type " + value);
                    }
                }
                case "ip_proto" -> proto = PROTOCOLS.getOrDefault(value, "ip_proto " + value);
                default -> terms.add(fieldName(key) + " " + value);
            }
        }
        if (fields.hasNext()) {
            terms.add("…");
        }
        if (proto != null) {
            terms.add(0, proto);
        }
        return terms.isEmpty() ? "any" : String.join(" ", terms);
    }

    private static boolean isIpv4(String value) {
        String v = value.toLowerCase(Locale.ROOT);
        return v.equals("0x0800") || v.equals("0x800") || v.equals("2048");
    }

    /** tcp_dst -> dst_port, ipv4_src -> src; the rest as written (lower case). */
    private static String fieldName(String key) {
        if (key.endsWith("_dst") && (key.startsWith("tcp") || key.startsWith("udp"))) {
            return "dst_port";
        }
        if (key.endsWith("_src") && (key.startsWith("tcp") || key.startsWith("udp"))) {
            return "src_port";
        }
        return switch (key) {
            case "ipv4_src", "ipv6_src" -> "src";
            case "ipv4_dst", "ipv6_dst" -> "dst";
            default -> key;
        };
    }

    private static String headerPayload(JsonNode match) {
        if (match == null || !match.isObject()) {
            return compact(match);
        }
        JsonNode h = match.get("header_match");
        String head = h == null || h.isEmpty() ? "" : header(h);
        List<String> parts = new ArrayList<>();
        if (!head.isEmpty()) {
            parts.add(head);
        }
        JsonNode payload = match.get("payload_match");
        if (payload != null && payload.isArray()) {
            int n = 0;
            for (JsonNode p : payload) {
                if (n++ == MAX_TERMS) {
                    parts.add("…");
                    break;
                }
                boolean regex = p.path("is_regex").asBoolean(false);
                parts.add(
                        regex
                                ? "pcre /" + p.path("pattern").asText() + "/"
                                : "content \"" + p.path("pattern").asText() + "\"");
            }
        }
        return parts.isEmpty() ? "any" : String.join(" ", parts);
    }

    private static String pattern(JsonNode match, boolean regex) {
        String p = match != null && match.isTextual() ? match.asText() : compact(match);
        return regex ? "/" + p + "/" : "content \"" + p + "\"";
    }

    private static String compact(JsonNode n) {
        String s = String.valueOf(n);
        return s.length() <= MAX_LENGTH ? s : s.substring(0, MAX_LENGTH);
    }
}
