package org.openbox.apps.ips;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a rule's content and pcre items, in rule order, into payload regexes that the OBI's
 * payload matcher (Hyperscan) compiles.
 *
 * <p>An item that is not relative starts a new regex; a relative item ({@code distance},
 * {@code within}, pcre flag {@code R}) extends the current one. Positions follow Snort 2.9:
 * <ul>
 * <li>{@code offset o; depth d}: the content starts at o or later and ends by o + d from
 *     the start of its buffer: {@code ^<buffer start><gap>{o,o+d-len}content};</li>
 * <li>{@code distance x; within w} (or {@code depth w} on a relative content): the
 *     content starts x or more bytes after the end of the previous item and ends by
 *     x + w bytes after it: {@code previous<gap>{x,x+w-len}content}; a relative item
 *     with no previous item (or whose previous item is in another buffer) is relative to
 *     the start of its buffer;</li>
 * <li>a pcre's {@code ^} (and flag {@code A}) anchors at the start of its buffer, or with
 *     {@code R} at the end of the previous item; with {@code m} it also matches after a
 *     newline. Since the matcher only takes {@code ^} at the very start of a regex, a pcre
 *     placed after a buffer prefix or a previous item is written as two alternatives:
 *     matching right there (its {@code ^} removed) or further on (its {@code ^} never
 *     matching, or, with {@code m}, consuming the newline before it).</li>
 * </ul>
 * {@code file_data} puts the items without a buffer modifier that follow in the body;
 * {@code isdataat} and {@code urilen} become bounded runs of bytes (see their methods).
 * A window wider than the largest frame is unbounded (same matches); empty gaps are left
 * out (the matcher rejects {@code {0,0}}). What cannot be written exactly (negative
 * distance, offset mixed with distance, {@code ^} after consumed text) throws
 * {@link SnortRuleParser.Unsupported} and the rule is skipped with that reason.
 * HTTP buffers ({@code http_uri}, ...) are approximated on the raw payload; see
 * {@link Buffer}.
 */
final class PayloadBuilder {
    /** Gaps wider than this are written unbounded: no frame the OBI takes is longer (its kMaxFrame). */
    static final int MAX_FRAME = 9216;

    /** Where in an HTTP message an item must occur, approximated on the raw payload. */
    enum Buffer {
        /** The whole payload. */
        ANY("^", "", "(?s:.)"),
        /** The request target: after the method and its space, up to the next space. */
        URI("^[A-Za-z]+ ", "^[A-Za-z]+ [^ \\r\\n]*", "[^ \\r\\n]"),
        /** The request method. */
        METHOD("^", "^[A-Za-z]*", "[A-Za-z]"),
        /** The header lines: after the request line; an unpositioned item lies on one header line. */
        HEADER("^[^\\r\\n]*\\n", "\\n[^\\r\\n]*", "(?s:.)"),
        /** The body: after the first blank line. */
        BODY("^(?s:.)*?\\r\\n\\r\\n", "\\r\\n\\r\\n(?s:.)*", "(?s:.)"),
        /** The status line of a response, after the protocol version. */
        STATUS("^HTTP/[0-9.]+ ", "^HTTP/[0-9.]+ [^\\r\\n]*", "[^\\r\\n]");

        /** Anchored regex that ends where the buffer starts. */
        final String start;
        /** Regex that ends anywhere in the buffer (an item with no position). */
        final String anywhere;
        /** One byte inside the buffer. */
        final String gapChar;

        Buffer(String start, String anywhere, String gapChar) {
            this.start = start;
            this.anywhere = anywhere;
            this.gapChar = gapChar;
        }

        boolean gapTakesNewline() {
            return gapChar.equals("(?s:.)");
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
    /** Regexes that no relative item may extend (urilen, absolute isdataat). */
    private final List<String> standalone = new ArrayList<>();
    /** Index of the regex a relative isdataat ended (nothing relative may follow it), or -1. */
    private int closed = -1;
    /** The buffer of items without a buffer modifier (file_data: the body). */
    private Buffer sticky = Buffer.ANY;

    private Content pending;

    void content(String value) throws SnortRuleParser.Unsupported {
        flush();
        String v = value == null ? "" : value.strip();
        if (v.startsWith("!")) {
            throw new SnortRuleParser.Unsupported("negated content is not supported");
        }
        pending = new Content();
        pending.buffer = sticky;
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
        String re = literalBraces(v.substring(1, last));
        String flags = v.substring(last + 1);
        if (!SnortRuleParser.regexSupported(re)) {
            throw new SnortRuleParser.Unsupported("pcre uses back-references, look-around or possessive "
                    + "quantifiers, which the payload matcher does not support");
        }
        StringBuilder inline = new StringBuilder();
        Buffer buffer = sticky;
        boolean relative = false;
        boolean anchoredFlag = false;
        for (char f : flags.toCharArray()) {
            switch (f) {
                case 'i', 's', 'm', 'x' -> inline.append(f);
                case 'U', 'I' -> buffer = Buffer.URI;
                case 'H', 'D', 'C', 'K' -> buffer = Buffer.HEADER;
                case 'P' -> buffer = Buffer.BODY;
                case 'M' -> buffer = Buffer.METHOD;
                case 'S', 'Y' -> buffer = Buffer.STATUS;
                case 'R' -> relative = true;
                case 'A' -> anchoredFlag = true;
                case 'B', 'O', 'G', 'E' -> {} // raw bytes, match limits, greediness, $ at end only: same matches
                default -> throw new SnortRuleParser.Unsupported("pcre flag '" + f + "' is not supported");
            }
        }
        boolean multiline = inline.indexOf("m") >= 0;
        Anchors a = Anchors.of(re);
        boolean followsItem = relative && !patterns.isEmpty() && last() == buffer;
        if (followsItem) {
            checkOpen();
        }
        // The regex so far ends where the pcre's search starts (previous item or buffer start).
        StringBuilder p;
        if (followsItem) {
            p = patterns.get(patterns.size() - 1);
        } else {
            p = new StringBuilder();
            patterns.add(p);
            patternBuffers.add(buffer);
        }
        String group0 = "(?" + inline + ":" + a.atStart + ")";
        String later = multiline && buffer.gapTakesNewline() ? a.afterNewline : a.never;
        String group1 = "(?" + inline + ":" + later + ")";
        if (anchoredFlag || a.onlyAtStart) {
            // matches only where the search starts
            p.append(followsItem ? "" : buffer.start).append(group0);
        } else if (!a.any) {
            if (followsItem) {
                p.append(buffer.gapChar).append('*').append(group0);
            } else {
                p.append(buffer.anywhere).append(group0);
            }
        } else if (!followsItem && buffer == Buffer.ANY) {
            p.append("(?:^").append(group0).append('|').append(group1).append(')');
        } else {
            p.append(followsItem ? "" : buffer.start)
                    .append("(?:")
                    .append(group0)
                    .append('|')
                    .append(buffer.gapChar)
                    .append('*')
                    .append(group1)
                    .append(')');
        }
    }

    /**
     * {@code file_data}: items without a buffer modifier that follow are in the body (the
     * part after the first blank line).
     */
    void fileData(String value) throws SnortRuleParser.Unsupported {
        flush();
        if (value != null && !value.isBlank()) {
            throw new SnortRuleParser.Unsupported(
                    "file_data with an argument ('" + value.strip() + "') is not supported");
        }
        sticky = Buffer.BODY;
    }

    /**
     * {@code isdataat:N[,relative][,rawbytes]}: a byte exists N bytes after the end of the
     * previous item (relative) or at offset N of the buffer. Relative, it ends the item's
     * regex with N + 1 bytes of its buffer, so no relative item may follow it (that would
     * count from the wrong place).
     */
    void isdataat(String value) throws SnortRuleParser.Unsupported {
        flush();
        String v = value == null ? "" : value.strip();
        if (v.startsWith("!")) {
            throw new SnortRuleParser.Unsupported("negated isdataat is not supported");
        }
        String[] parts = v.split(",");
        int n = number("isdataat", parts[0]);
        boolean relative = false;
        for (int i = 1; i < parts.length; i++) {
            switch (parts[i].strip()) {
                case "relative" -> relative = true;
                case "rawbytes" -> {}
                default -> throw new SnortRuleParser.Unsupported(
                        "isdataat modifier '" + parts[i].strip() + "' is not supported");
            }
        }
        if (n < 0 || n + 1 > MAX_FRAME) {
            throw new SnortRuleParser.Unsupported(
                    "isdataat " + n + " is beyond the largest frame (" + MAX_FRAME + " bytes)");
        }
        if (relative && !patterns.isEmpty()) {
            checkOpen();
            patterns.get(patterns.size() - 1).append(gap(last(), n + 1, n + 1));
            closed = patterns.size() - 1;
        } else {
            standalone.add(sticky.start + gap(sticky, n + 1, n + 1));
        }
    }

    /**
     * {@code urilen:N}, {@code :>N}, {@code :<N}, {@code :N<>M} (exclusive), {@code :N<=>M}
     * (inclusive), optionally {@code ,norm} / {@code ,raw}: the length of the request target,
     * measured on the raw request line.
     */
    void urilen(String value) throws SnortRuleParser.Unsupported {
        String v = value == null ? "" : value.strip();
        int comma = v.indexOf(',');
        if (comma >= 0) {
            String kind = v.substring(comma + 1).strip();
            if (!kind.equals("norm") && !kind.equals("raw")) {
                throw new SnortRuleParser.Unsupported("urilen modifier '" + kind + "' is not supported");
            }
            v = v.substring(0, comma).strip();
        }
        int lo;
        Integer hi;
        if (v.contains("<=>")) {
            String[] r = v.split("<=>", 2);
            lo = number("urilen", r[0]);
            hi = number("urilen", r[1]);
        } else if (v.contains("<>")) {
            String[] r = v.split("<>", 2);
            lo = number("urilen", r[0]) + 1;
            hi = number("urilen", r[1]) - 1;
        } else if (v.startsWith(">")) {
            lo = number("urilen", v.substring(1)) + 1;
            hi = null;
        } else if (v.startsWith("<")) {
            lo = 0;
            hi = number("urilen", v.substring(1)) - 1;
        } else {
            lo = number("urilen", v);
            hi = lo;
        }
        if (lo < 0 || (hi != null && hi < lo) || lo > MAX_FRAME) {
            throw new SnortRuleParser.Unsupported("urilen '" + value + "' admits no length");
        }
        if (hi != null && hi > MAX_FRAME) {
            hi = null;
        }
        String len = hi == null ? "{" + lo + ",}" : hi.equals(lo) ? "{" + lo + "}" : "{" + lo + "," + hi + "}";
        standalone.add(Buffer.URI.start + Buffer.URI.gapChar + len + "[ \\r\\n]");
    }

    List<String> build() throws SnortRuleParser.Unsupported {
        flush();
        if (patterns.isEmpty() && standalone.isEmpty()) {
            throw new SnortRuleParser.Unsupported("no content or pcre: nothing for the payload matcher");
        }
        List<String> out =
                new ArrayList<>(patterns.stream().map(StringBuilder::toString).toList());
        out.addAll(standalone);
        return out;
    }

    private void checkOpen() throws SnortRuleParser.Unsupported {
        if (closed == patterns.size() - 1) {
            throw new SnortRuleParser.Unsupported("a relative item after a relative isdataat is not supported");
        }
    }

    private Buffer last() {
        return patternBuffers.get(patternBuffers.size() - 1);
    }

    private void flush() throws SnortRuleParser.Unsupported {
        if (pending == null) {
            return;
        }
        Content c = pending;
        pending = null;
        String lit = literal(c.bytes, c.nocase);
        int len = c.bytes.length;
        boolean relative = c.distance != null || c.within != null;
        if (relative && c.offset != null) {
            throw new SnortRuleParser.Unsupported("offset together with distance/within is not supported");
        }
        if (relative && c.depth != null && c.within != null) {
            throw new SnortRuleParser.Unsupported("depth together with within is not supported");
        }
        int lo;
        Integer window; // bytes from the window's start within which the content must end
        if (relative) {
            lo = c.distance == null ? 0 : c.distance;
            window = c.within != null ? c.within : c.depth;
            if (lo < 0) {
                throw new SnortRuleParser.Unsupported("negative distance is not supported");
            }
        } else {
            lo = c.offset == null ? 0 : c.offset;
            window = c.depth;
            if (lo < 0) {
                throw new SnortRuleParser.Unsupported("negative offset is not supported");
            }
        }
        Integer hi = null;
        if (window != null) {
            if (window < len) {
                throw new SnortRuleParser.Unsupported((relative ? "within" : "depth") + " " + window
                        + " is shorter than the content (" + len + " bytes)");
            }
            hi = lo + window - len;
        }
        if (lo > MAX_FRAME) {
            throw new SnortRuleParser.Unsupported(
                    "the content starts beyond the largest frame (" + MAX_FRAME + " bytes)");
        }
        if (hi != null && hi > MAX_FRAME) {
            hi = null; // no frame reaches the end of the window
        }
        if (relative && !patterns.isEmpty() && last() == c.buffer) {
            checkOpen();
            patterns.get(patterns.size() - 1).append(gap(c.buffer, lo, hi)).append(lit);
            return;
        }
        StringBuilder p = new StringBuilder();
        if (lo == 0 && hi == null) {
            p.append(c.buffer.anywhere);
        } else {
            p.append(c.buffer.start).append(gap(c.buffer, lo, hi));
        }
        p.append(lit);
        patterns.add(p);
        patternBuffers.add(c.buffer);
    }

    /**
     * PCRE reads a '{' that does not start a quantifier ({n}, {n,}, {n,m}) as a literal
     * brace ({@code \x24{jndi} in Log4Shell rules); the regex dialects the controller and the
     * OBI check with read it as a broken repetition. Escapes such braces, outside character
     * classes, and leaves everything else as it is.
     */
    static String literalBraces(String re) {
        int n = re.length();
        StringBuilder out = new StringBuilder(n + 8);
        boolean inClass = false;
        for (int i = 0; i < n; i++) {
            char c = re.charAt(i);
            if (c == '\\' && i + 1 < n) {
                out.append(c).append(re.charAt(++i));
            } else if (inClass) {
                out.append(c);
                inClass = c != ']';
            } else if (c == '[') {
                // a ']' right after '[' or '[^' is a member of the class, not its end
                out.append(c);
                if (i + 1 < n && re.charAt(i + 1) == '^') {
                    out.append(re.charAt(++i));
                }
                if (i + 1 < n && re.charAt(i + 1) == ']') {
                    out.append(re.charAt(++i));
                }
                inClass = true;
            } else if (c == '{' && !QUANTIFIER.matcher(re).region(i, n).lookingAt()) {
                out.append("\\{");
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static final java.util.regex.Pattern QUANTIFIER = java.util.regex.Pattern.compile("\\{\\d+(,\\d*)?}");

    /** Between lo and hi (null: any number of) bytes of the buffer; "" for none. */
    static String gap(Buffer b, int lo, Integer hi) {
        if (hi != null && hi == 0) {
            return "";
        }
        String q;
        if (hi == null) {
            q = lo == 0 ? "*" : "{" + lo + ",}";
        } else if (hi == lo) {
            q = "{" + lo + "}";
        } else {
            q = "{" + lo + "," + hi + "}";
        }
        return b.gapChar + q;
    }

    private static int number(String name, String value) throws SnortRuleParser.Unsupported {
        try {
            return Integer.parseInt(value == null ? "" : value.strip());
        } catch (NumberFormatException e) {
            throw new SnortRuleParser.Unsupported(name + " needs a number (variables are not supported)");
        }
    }

    /**
     * The start anchors ({@code ^}, {@code \A}) of a pcre body. Each must stand where the
     * body has consumed nothing yet (e.g. {@code (^|&)x}); the body is then given in three
     * forms: {@link #atStart} (anchors removed: matching where the search starts),
     * {@link #never} (anchors replaced by a class that matches nothing) and
     * {@link #afterNewline} (anchors replaced by a newline, for {@code m}).
     */
    record Anchors(boolean any, boolean onlyAtStart, String atStart, String never, String afterNewline) {
        private static final String NOTHING = "[^\\x00-\\xff]";

        static Anchors of(String body) throws SnortRuleParser.Unsupported {
            StringBuilder start = new StringBuilder();
            StringBuilder never = new StringBuilder();
            StringBuilder newline = new StringBuilder();
            List<Boolean> stack = new ArrayList<>(); // "consumed" at each open group's start
            boolean consumed = false;
            boolean any = false;
            boolean topLevelAlternative = false;
            boolean leading = false; // the body starts with an anchor
            int n = body.length();
            for (int i = 0; i < n; i++) {
                char c = body.charAt(i);
                if (c == '\\' && i + 1 < n) {
                    char e = body.charAt(i + 1);
                    if (e == 'A') {
                        if (consumed) {
                            throw anchorError();
                        }
                        any = true;
                        leading |= i == 0;
                        never.append(NOTHING);
                        newline.append(NOTHING);
                        i++;
                        continue;
                    }
                    int end = escapeEnd(body, i);
                    String esc = body.substring(i, end);
                    start.append(esc);
                    never.append(esc);
                    newline.append(esc);
                    i = end - 1;
                    consumed |= !(e == 'b' || e == 'B' || e == 'Z' || e == 'z');
                    continue;
                }
                if (c == '[') {
                    int end = classEnd(body, i);
                    String cls = body.substring(i, end);
                    start.append(cls);
                    never.append(cls);
                    newline.append(cls);
                    i = end - 1;
                    consumed = true;
                    continue;
                }
                if (c == '^') {
                    if (consumed) {
                        throw anchorError();
                    }
                    any = true;
                    leading |= i == 0;
                    never.append(NOTHING);
                    newline.append("\\n");
                    continue;
                }
                start.append(c);
                never.append(c);
                newline.append(c);
                switch (c) {
                    case '(' -> {
                        int close = inlineFlagsEnd(body, i);
                        if (close > 0) { // "(?i)": flags, no group
                            String f = body.substring(i + 1, close + 1);
                            start.append(f);
                            never.append(f);
                            newline.append(f);
                            i = close;
                        } else {
                            stack.add(consumed);
                        }
                    }
                    case '|' -> {
                        if (stack.isEmpty()) {
                            topLevelAlternative = true;
                            consumed = false;
                        } else {
                            consumed = stack.get(stack.size() - 1);
                        }
                    }
                    case ')' -> {
                        if (!stack.isEmpty()) {
                            stack.remove(stack.size() - 1);
                        }
                        consumed = true;
                    }
                    case '?', '*', '+', '{', '}', ',', '$' -> {}
                    default -> {
                        if (!(c >= '0' && c <= '9' && inRepeat(body, i))) {
                            consumed = true;
                        }
                    }
                }
            }
            boolean only = leading && !topLevelAlternative;
            return new Anchors(any, only, start.toString(), never.toString(), newline.toString());
        }

        private static SnortRuleParser.Unsupported anchorError() {
            return new SnortRuleParser.Unsupported(
                    "pcre has '^' after text it has already matched, " + "which the payload matcher cannot place");
        }

        private static boolean inRepeat(String s, int i) {
            int open = s.lastIndexOf('{', i);
            int close = s.lastIndexOf('}', i);
            return open > close;
        }

        /** End (exclusive) of the escape starting at i. */
        private static int escapeEnd(String s, int i) {
            char e = s.charAt(i + 1);
            if (e == 'x' && i + 2 < s.length() && s.charAt(i + 2) == '{') {
                int close = s.indexOf('}', i);
                return close < 0 ? s.length() : close + 1;
            }
            if (e == 'x') {
                int j = i + 2;
                while (j < s.length() && j < i + 4 && Character.digit(s.charAt(j), 16) >= 0) {
                    j++;
                }
                return j;
            }
            return i + 2;
        }

        /** End (exclusive) of the character class starting at i. */
        private static int classEnd(String s, int i) {
            int j = i + 1;
            if (j < s.length() && s.charAt(j) == '^') {
                j++;
            }
            if (j < s.length() && s.charAt(j) == ']') {
                j++;
            }
            while (j < s.length()) {
                char c = s.charAt(j);
                if (c == '\\') {
                    j += 2;
                    continue;
                }
                if (c == '[' && j + 1 < s.length() && s.charAt(j + 1) == ':') {
                    int close = s.indexOf(":]", j + 2);
                    if (close > 0) {
                        j = close + 2;
                        continue;
                    }
                }
                if (c == ']') {
                    return j + 1;
                }
                j++;
            }
            return s.length();
        }

        /** For "(?flags)" at i, the index of its ')'; else -1. */
        private static int inlineFlagsEnd(String s, int i) {
            if (i + 2 >= s.length() || s.charAt(i + 1) != '?') {
                return -1;
            }
            int j = i + 2;
            while (j < s.length() && (Character.isLetter(s.charAt(j)) || s.charAt(j) == '-')) {
                j++;
            }
            return j > i + 2 && j < s.length() && s.charAt(j) == ')' ? j : -1;
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
