package org.openbox.apps.ips;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a rule's content and pcre items, in rule order, into payload regexes.
 *
 * <p>An item that is not relative starts a new regex; a relative item ({@code distance},
 * {@code within}, pcre flag {@code R}) extends the current one with a bounded gap. A
 * buffer ({@code http_uri}, ...) constrains where the first item of a regex may occur.
 */
final class PayloadBuilder {
    /** Where in an HTTP request an item must occur, approximated on the raw payload. */
    enum Buffer {
        ANY("", "(?s:.)"),
        URI("^[A-Za-z]+ [^ \\r\\n]*", "[^ \\r\\n]"),        // inside the request target
        METHOD("^", "[A-Za-z]"),
        HEADER("\\n[^\\r\\n]*", "[^\\r\\n]"),              // on one header line
        BODY("\\r\\n\\r\\n(?s:.*)", "(?s:.)"),              // after the blank line
        STATUS("^HTTP/[0-9.]+ [^\\r\\n]*", "[^\\r\\n]");   // on the status line

        final String prefix;
        final String gapChar;

        Buffer(String prefix, String gapChar) {
            this.prefix = prefix;
            this.gapChar = gapChar;
        }
    }

    /** One content item while its modifiers are being collected. */
    private static final class Content {
        byte[] bytes;
        boolean nocase;
        Integer offset;
        Integer depth;
        Integer distance;
        Integer within;
        Buffer buffer = Buffer.ANY;
    }

    private final List<StringBuilder> patterns = new ArrayList<>();
    private final List<Buffer> patternBuffers = new ArrayList<>();
    private Content pending;

    void content(String value) throws SnortRuleParser.Unsupported {
        flush();
        String v = value == null ? "" : value.strip();
        if (v.startsWith("!")) {
            throw new SnortRuleParser.Unsupported("negated content is not supported");
        }
        pending = new Content();
        pending.bytes = decodeContent(SnortRuleParser.unquote(v));
        if (pending.bytes.length == 0) {
            throw new SnortRuleParser.Unsupported("empty content");
        }
    }

    void modifier(String name, String value) throws SnortRuleParser.Unsupported {
        if (pending == null) {
            throw new SnortRuleParser.Unsupported("'" + name + "' without a preceding content");
        }
        switch (name) {
            case "nocase" -> pending.nocase = true;
            case "offset" -> pending.offset = number(name, value);
            case "depth" -> pending.depth = number(name, value);
            case "distance" -> pending.distance = number(name, value);
            case "within" -> pending.within = number(name, value);
            case "http_uri", "http_raw_uri" -> pending.buffer = Buffer.URI;
            case "http_header", "http_raw_header", "http_cookie", "http_raw_cookie" -> pending.buffer = Buffer.HEADER;
            case "http_client_body" -> pending.buffer = Buffer.BODY;
            case "http_method" -> pending.buffer = Buffer.METHOD;
            case "http_stat_code", "http_stat_msg" -> pending.buffer = Buffer.STATUS;
            default -> throw new SnortRuleParser.Unsupported("content modifier '" + name + "' is not supported");
        }
    }

    void pcre(String value) throws SnortRuleParser.Unsupported {
        flush();
        String v = SnortRuleParser.unquote(value);
        if (v.startsWith("!")) {
            throw new SnortRuleParser.Unsupported("negated pcre is not supported");
        }
        int last = v.lastIndexOf('/');
        if (!v.startsWith("/") || last <= 0) {
            throw new SnortRuleParser.Unsupported("pcre must be /regex/flags");
        }
        String re = v.substring(1, last);
        String flags = v.substring(last + 1);
        if (!SnortRuleParser.regexSupported(re)) {
            throw new SnortRuleParser.Unsupported("pcre uses back-references, look-around or possessive "
                    + "quantifiers, which the payload matcher does not support");
        }
        StringBuilder inline = new StringBuilder();
        Buffer buffer = Buffer.ANY;
        boolean relative = false;
        for (char f : flags.toCharArray()) {
            switch (f) {
                case 'i', 's', 'm', 'x' -> inline.append(f);
                case 'U', 'I' -> buffer = Buffer.URI;
                case 'H', 'D', 'C', 'K' -> buffer = Buffer.HEADER;
                case 'P' -> buffer = Buffer.BODY;
                case 'M' -> buffer = Buffer.METHOD;
                case 'S', 'Y' -> buffer = Buffer.STATUS;
                case 'R' -> relative = true;
                case 'B', 'O', 'G', 'E', 'A' -> { }   // raw bytes, no greedy/anchor changes that alter a match
                default -> throw new SnortRuleParser.Unsupported("pcre flag '" + f + "' is not supported");
            }
        }
        boolean anchored = re.startsWith("^");
        String body = anchored ? re.substring(1) : re;
        String group = "(?" + inline + ":" + body + ")";
        if (relative && !patterns.isEmpty()) {
            patterns.get(patterns.size() - 1).append("(?s:.*)").append(group);
            return;
        }
        StringBuilder p = new StringBuilder();
        if (anchored) {
            // "^" anchors to the start of the buffer
            p.append(buffer == Buffer.ANY ? "^" : buffer == Buffer.URI ? "^[A-Za-z]+ " : buffer.prefix);
        } else {
            p.append(buffer.prefix);
        }
        p.append(group);
        patterns.add(p);
        patternBuffers.add(buffer);
    }

    List<String> build() throws SnortRuleParser.Unsupported {
        flush();
        if (patterns.isEmpty()) {
            throw new SnortRuleParser.Unsupported("no content or pcre: nothing for the payload matcher");
        }
        return patterns.stream().map(StringBuilder::toString).toList();
    }

    private void flush() throws SnortRuleParser.Unsupported {
        if (pending == null) {
            return;
        }
        Content c = pending;
        pending = null;
        String lit = literal(c.bytes, c.nocase);
        boolean relative = c.distance != null || c.within != null;
        int len = c.bytes.length;
        if (relative && !patterns.isEmpty() && patternBuffers.get(patterns.size() - 1) == c.buffer) {
            int d = c.distance == null ? 0 : c.distance;
            if (d < 0) {
                throw new SnortRuleParser.Unsupported("negative distance is not supported");
            }
            String gap;
            if (c.within != null) {
                int max = c.within - len;
                if (max < d) {
                    throw new SnortRuleParser.Unsupported("within is shorter than the content");
                }
                gap = c.buffer.gapChar + "{" + d + "," + max + "}";
            } else {
                gap = d == 0 ? c.buffer.gapChar + "*" : c.buffer.gapChar + "{" + d + ",}";
            }
            patterns.get(patterns.size() - 1).append(gap).append(lit);
            return;
        }
        StringBuilder p = new StringBuilder();
        if (c.buffer == Buffer.ANY && (c.offset != null || c.depth != null)) {
            int off = c.offset == null ? 0 : c.offset;
            if (off < 0) {
                throw new SnortRuleParser.Unsupported("negative offset is not supported");
            }
            if (c.depth != null) {
                int max = off + c.depth - len;
                if (max < off) {
                    throw new SnortRuleParser.Unsupported("depth is shorter than the content");
                }
                p.append("^(?s:.{").append(off).append(',').append(max).append("})");
            } else {
                p.append("^(?s:.{").append(off).append(",})");
            }
        } else {
            p.append(c.buffer.prefix);
        }
        p.append(lit);
        patterns.add(p);
        patternBuffers.add(c.buffer);
    }

    private static int number(String name, String value) throws SnortRuleParser.Unsupported {
        try {
            return Integer.parseInt(value == null ? "" : value.strip());
        } catch (NumberFormatException e) {
            throw new SnortRuleParser.Unsupported(name + " needs a number (variables are not supported)");
        }
    }

    /** Snort content text: literal characters with |41 42| hex runs. */
    static byte[] decodeContent(String s) throws SnortRuleParser.Unsupported {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        boolean hex = false;
        StringBuilder digits = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '|') {
                if (hex && digits.length() > 0) {
                    throw new SnortRuleParser.Unsupported("odd number of hex digits in content");
                }
                hex = !hex;
            } else if (hex) {
                if (Character.isWhitespace(c)) {
                    continue;
                }
                if (Character.digit(c, 16) < 0) {
                    throw new SnortRuleParser.Unsupported("bad hex digit '" + c + "' in content");
                }
                digits.append(c);
                if (digits.length() == 2) {
                    out.write(Integer.parseInt(digits.toString(), 16));
                    digits.setLength(0);
                }
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.ISO_8859_1);
                out.write(b, 0, b.length);
            }
        }
        if (hex) {
            throw new SnortRuleParser.Unsupported("unterminated |hex| run in content");
        }
        return out.toByteArray();
    }

    /** A regex matching exactly these bytes (case-insensitively for letters if nocase). */
    static String literal(byte[] bytes, boolean nocase) {
        StringBuilder sb = new StringBuilder();
        for (byte b : bytes) {
            int v = b & 0xff;
            if ((v >= '0' && v <= '9') || (v >= 'a' && v <= 'z') || (v >= 'A' && v <= 'Z')) {
                sb.append((char) v);
            } else {
                sb.append(String.format("\\x%02x", v));
            }
        }
        return nocase ? "(?i:" + sb + ")" : sb.toString();
    }
}
