package org.openbox.api.blocks;

import org.openbox.protocol.ErrorSubtype;

/**
 * Matches packets against a set of regular expressions. Output 0: matched packets; output 1: unmatched packets.
 *
 * <p>Ports: 1 input, 2 outputs. Class: classifier; spec 5.8.
 * Config: pattern (string[], required), payload_only (bool), match_all (bool).
 * Read handles: count, byte_count, rate, byte_rate, payload_only, match_all.
 * Write handles: payload_only, match_all, reset_counts.
 * <pre>new RegexMatcher("rm").pattern("evil", "worse").matchAll(false)  // 0 matched, 1 not</pre>
 */
public abstract class RegexMatcherExtension extends ProcessingBlock {

    RegexMatcherExtension(String name) {
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
