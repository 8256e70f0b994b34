package org.openbox.api.blocks;

import org.openbox.protocol.ErrorSubtype;

/**
 * Classifies packets by fixed strings in their content, all matched in one scan (every string
 * taken literally): output i for the first listed string i found anywhere in the scanned bytes;
 * a packet that holds none is dropped.
 *
 * <p>Ports: 1 input, one output per element of strings. Class: classifier; extension.
 * Config: strings (string[], required), case_insensitive (bool), payload_only (bool).
 * Read handles: count, byte_count, rate, byte_rate, count_i, byte_count_i, rate_i, byte_rate_i,
 * payload_only. Write handles: payload_only, reset_counts, reset_all_counts, reset_i.
 * <pre>new StringClassifier("words").strings("cmd.exe", "/etc/passwd").caseInsensitive(true)  // outputs 0, 1</pre>
 */
public final class StringClassifier extends ProcessingBlock {

    public StringClassifier(String name) {
        super(name);
    }

    /** Adds to strings: one non-empty string per output, in priority order, matched literally. */
    public StringClassifier strings(String... values) {
        for (String v : values) {
            list("strings").add(v);
        }
        return this;
    }

    /** ASCII letters match either case. */
    public StringClassifier caseInsensitive(boolean value) {
        set("case_insensitive", value);
        return this;
    }

    /** Match only the payload after the recognised network layers. */
    public StringClassifier payloadOnly(boolean value) {
        set("payload_only", value);
        return this;
    }

    @Override
    public void check() {
        requireRules("strings", "strings");
        for (int i = 0; i < size("strings"); i++) {
            if (get("strings").get(i).asText().isEmpty()) {
                throw invalid(ErrorSubtype.BAD_BLOCK, "strings entry " + i + " is empty");
            }
        }
    }
}
