package org.openbox.api.blocks;

/**
 * Normalises JavaScript in HTTP payloads so that payload patterns are not evaded by encoding tricks. Spec 5.35 names normalizers without a configuration; this one is the project's.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.35.
 * Config: unescape (bool), remove_comments (bool), collapse_whitespace (bool).
 * Read handles: count.
 * Write handles: reset_counts.
 * <pre>new JsNormalizer("js")</pre>
 */
public final class JsNormalizer extends ProcessingBlock {

    public JsNormalizer(String name) {
        super(name);
    }

    /** Decode hexadecimal (x), Unicode (u) and percent escapes in string literals. */
    public JsNormalizer unescape(boolean value) {
        set("unescape", value);
        return this;
    }

    /** Remove line and block comments. */
    public JsNormalizer removeComments(boolean value) {
        set("remove_comments", value);
        return this;
    }

    /** Replace runs of whitespace by one space. */
    public JsNormalizer collapseWhitespace(boolean value) {
        set("collapse_whitespace", value);
        return this;
    }
}
