package org.openbox.protocol.match;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reading and writing the scalars of header-match values: integers, MAC, IPv4 and IPv6
 * addresses. Parsers return null on malformed text; the caller names the field in its error.
 */
final class Scalars {
    private static final Pattern MAC = Pattern.compile("[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\\1[0-9a-fA-F]{2}){4}");
    private static final Pattern HEXTET = Pattern.compile("[0-9a-fA-F]{1,4}");

    private Scalars() {}

    /** A scalar in the syntax of {@code s}, or null when malformed. */
    static BigInteger parse(Syntax s, String text) {
        return switch (s) {
            case INTEGER -> parseInteger(text);
            case MAC -> parseMac(text);
            case IPV4 -> parseIpv4(text);
            case IPV6 -> parseIpv6(text);
        };
    }

    static BigInteger parseInteger(String t) {
        // Scanned by hand rather than by regular expression: rule sets hold thousands of these
        // and every application build, check and merge reads them again.
        int n = t.length();
        if (n > 2 && t.charAt(0) == '0' && (t.charAt(1) == 'x' || t.charAt(1) == 'X')) {
            for (int i = 2; i < n; i++) {
                if (!isHexDigit(t.charAt(i))) return null;
            }
            return n - 2 <= 15 ? BigInteger.valueOf(Long.parseLong(t, 2, n, 16)) : new BigInteger(t.substring(2), 16);
        }
        if (!isDecimal(t)) return null;
        return n <= 18 ? BigInteger.valueOf(Long.parseLong(t)) : new BigInteger(t);
    }

    /** One or more ASCII decimal digits (Character.isDigit would also take other scripts'). */
    private static boolean isDecimal(String t) {
        if (t.isEmpty()) return false;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        return true;
    }

    /** An ASCII hexadecimal digit (Character.digit would also take other scripts' digits). */
    private static boolean isHexDigit(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    static BigInteger parseMac(String t) {
        if (!MAC.matcher(t).matches()) {
            return null;
        }
        return new BigInteger(t.replace(":", "").replace("-", ""), 16);
    }

    /** A dotted quad: four decimal octets of at most 255, without leading zeros. */
    static BigInteger parseIpv4(String t) {
        int n = t.length();
        int i = 0;
        long v = 0;
        for (int octet = 0; octet < 4; octet++) {
            if (octet > 0) {
                if (i >= n || t.charAt(i) != '.') return null;
                i++;
            }
            int start = i;
            int o = 0;
            while (i < n && t.charAt(i) >= '0' && t.charAt(i) <= '9' && i - start < 3) {
                o = o * 10 + (t.charAt(i++) - '0');
            }
            int digits = i - start;
            if (digits == 0 || (digits > 1 && t.charAt(start) == '0') || o > 255) return null;
            v = (v << 8) | o;
        }
        return i == n ? BigInteger.valueOf(v) : null;
    }

    static BigInteger parseIpv6(String t) {
        int dbl = t.indexOf("::");
        if (dbl >= 0 && t.indexOf("::", dbl + 1) >= 0) {
            return null;
        }
        List<Integer> head;
        List<Integer> tail;
        if (dbl >= 0) {
            head = hextets(t.substring(0, dbl), false);
            tail = hextets(t.substring(dbl + 2), true);
            if (head == null || tail == null || head.size() + tail.size() > 7) {
                return null;
            }
        } else {
            head = hextets(t, true);
            tail = List.of();
            if (head == null || head.size() != 8) {
                return null;
            }
        }
        BigInteger v = BigInteger.ZERO;
        int zeros = 8 - head.size() - tail.size();
        List<Integer> all = new ArrayList<>(head);
        for (int i = 0; i < zeros; i++) {
            all.add(0);
        }
        all.addAll(tail);
        for (int h : all) {
            v = v.shiftLeft(16).or(BigInteger.valueOf(h));
        }
        return v;
    }

    /** Colon-separated 16-bit groups; the last may be a dotted quad when allowed. */
    private static List<Integer> hextets(String t, boolean ipv4Last) {
        List<Integer> out = new ArrayList<>();
        if (t.isEmpty()) {
            return out;
        }
        String[] parts = t.split(":", -1);
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (i == parts.length - 1 && ipv4Last && p.contains(".")) {
                BigInteger v4 = parseIpv4(p);
                if (v4 == null) {
                    return null;
                }
                out.add(v4.intValue() >>> 16);
                out.add(v4.intValue() & 0xffff);
            } else if (HEXTET.matcher(p).matches()) {
                out.add(Integer.parseInt(p, 16));
            } else {
                return null;
            }
        }
        return out;
    }

    /** A prefix length in [0, width], or -1. */
    static int parsePrefixLength(String t, int width) {
        if (t.length() > 3 || !isDecimal(t)) {
            return -1;
        }
        int n = Integer.parseInt(t);
        return n <= width ? n : -1;
    }

    /** The mask of {@code len} leading ones over {@code width} bits. */
    static BigInteger prefixMask(int len, int width) {
        BigInteger ones = BigInteger.ONE.shiftLeft(len).subtract(BigInteger.ONE);
        return ones.shiftLeft(width - len);
    }

    /** Lower-case hex with 0x and no leading zeros ("0x0" for zero). */
    static String hex(BigInteger v) {
        return "0x" + v.toString(16);
    }

    /** The text of a scalar in the field's syntax (integers as hex). */
    static String format(Syntax s, BigInteger v) {
        return switch (s) {
            case INTEGER -> hex(v);
            case MAC -> formatMac(v);
            case IPV4 -> formatIpv4(v.longValue());
            case IPV6 -> formatIpv6(v);
        };
    }

    private static String formatMac(BigInteger v) {
        StringBuilder sb = new StringBuilder();
        for (int i = 5; i >= 0; i--) {
            int b = v.shiftRight(8 * i).intValue() & 0xff;
            sb.append(String.format("%02x", b));
            if (i > 0) {
                sb.append(':');
            }
        }
        return sb.toString();
    }

    private static String formatIpv4(long v) {
        return ((v >> 24) & 0xff) + "." + ((v >> 16) & 0xff) + "." + ((v >> 8) & 0xff) + "." + (v & 0xff);
    }

    /** RFC 5952 text: the longest run (two or more) of zero groups becomes "::". */
    private static String formatIpv6(BigInteger v) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = v.shiftRight(16 * (7 - i)).intValue() & 0xffff;
        }
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }
}
