package org.openbox.api.blocks;

import org.openbox.protocol.ErrorSubtype;

/**
 * Classifies packets by regular expressions on their content: output i for the first matching pattern i; a packet that matches no pattern is dropped.
 *
 * <p>Ports: 1 input, one output per element of pattern. Class: classifier; spec 5.9.
 * Config: pattern (string[], required), payload_only (bool).
 * Read handles: count_i, byte_count_i, rate_i, byte_rate_i, payload_only.
 * Write handles: payload_only, reset_counts.
 * <pre>new RegexClassifier("rc").pattern("^GET /admin", "(?i)cmd\\.exe")  // outputs 0, 1</pre>
 */
public abstract class RegexClassifierExtension extends ProcessingBlock {

    RegexClassifierExtension(String name) {
        super(name);
    }

    @Override
    public void check() {
        requireRules("pattern", "patterns");
        for (int i = 0; i < size("pattern"); i++) {
            requireRegex(get("pattern").get(i).asText(), "pattern " + i, ErrorSubtype.BAD_BLOCK);
        }
    }
}
