package org.openbox.api;

import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines of a rule or settings file, refusing data that is not text. Applications read
 * rule files with it so a binary file (a wrong path, a compressed archive) is an error naming
 * the file and line instead of a rule set that silently holds nothing.
 *
 * <pre>List&lt;String&gt; lines = RuleText.lines(Files.readAllBytes(p), p.toString(), StandardCharsets.UTF_8);</pre>
 */
public final class RuleText {

    private RuleText() {}

    /**
     * Splits {@code data} into lines (LF, CRLF or CR). Throws IllegalArgumentException
     * {@code WHERE:LINE: not a text file (byte 0xNN at column C)} at the first control byte
     * other than tab, line feed, vertical tab, form feed and carriage return.
     */
    public static List<String> lines(byte[] data, String where, Charset charset) {
        int line = 1;
        int column = 1;
        for (byte b : data) {
            int c = b & 0xff;
            if (c == '\n') {
                line++;
                column = 1;
                continue;
            }
            if ((c < 0x20 && c != '\t' && c != 0x0b && c != '\f' && c != '\r') || c == 0x7f) {
                throw new IllegalArgumentException(
                        String.format("%s:%d: not a text file (byte 0x%02x at column %d)", where, line, c, column));
            }
            column++;
        }
        return new ArrayList<>(new String(data, charset).lines().toList());
    }
}
