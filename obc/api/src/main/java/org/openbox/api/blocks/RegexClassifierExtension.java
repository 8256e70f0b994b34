package org.openbox.api.blocks;

/**
 * Classifies packets by regular expressions on their content: output i for the first matching pattern i; a packet that matches no pattern is dropped.
 *
 * <p>Conveniences beside the generated {@link RegexClassifier}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/RegexClassifier.json.
 * <pre>new RegexClassifier("rc").pattern("^GET /admin", "(?i)cmd\\.exe")  // outputs 0, 1</pre>
 */
public abstract class RegexClassifierExtension extends ProcessingBlock {

    RegexClassifierExtension(String name) {
        super(name);
    }

    @Override
    public void check() {
        requirePatterns("pattern");
    }
}
