package org.openbox.api.blocks;

/**
 * Matches packets against a set of regular expressions. Output 0: matched packets; output 1: unmatched packets.
 *
 * <p>Conveniences beside the generated {@link RegexMatcher}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/RegexMatcher.json.
 * <pre>new RegexMatcher("rm").pattern("evil", "worse").matchAll(false)  // 0 matched, 1 not</pre>
 */
public abstract class RegexMatcherExtension extends ProcessingBlock {

    RegexMatcherExtension(String name) {
        super(name);
    }

    @Override
    public void check() {
        requirePatterns("pattern");
    }
}
