package org.openbox.api.blocks;

/**
 * Normalises HTML in HTTP payloads so that payload patterns are not evaded by encoding tricks. Spec 5.35 names normalizers without a configuration; this one is the project's.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.35.
 * Config: decode_entities (bool), remove_comments (bool), lowercase_tags (bool), collapse_whitespace (bool).
 * Read handles: count.
 * Write handles: reset_counts.
 * <pre>new HtmlNormalizer("html")</pre>
 */
public final class HtmlNormalizer extends ProcessingBlock {

    public HtmlNormalizer(String name) {
        super(name);
    }

    /** Replace character entities (&lt; &#60; &#x3c;) by the characters. */
    public HtmlNormalizer decodeEntities(boolean value) {
        set("decode_entities", value);
        return this;
    }

    /** Remove <!-- --> comments. */
    public HtmlNormalizer removeComments(boolean value) {
        set("remove_comments", value);
        return this;
    }

    /** Lower-case tag and attribute names. */
    public HtmlNormalizer lowercaseTags(boolean value) {
        set("lowercase_tags", value);
        return this;
    }

    /** Replace runs of whitespace by one space. */
    public HtmlNormalizer collapseWhitespace(boolean value) {
        set("collapse_whitespace", value);
        return this;
    }
}
