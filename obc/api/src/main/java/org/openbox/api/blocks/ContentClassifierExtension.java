package org.openbox.api.blocks;

import java.util.regex.Pattern;
import org.openbox.protocol.ErrorSubtype;

/**
 * Classifies packets by bytes at fixed offsets: output i for the first matching pattern i; a packet that matches no pattern is dropped.
 *
 * <p>Conveniences beside the generated {@link ContentClassifier}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/ContentClassifier.json.
 * <pre>new ContentClassifier("cc").pattern("12/0800", "-")</pre>
 */
public abstract class ContentClassifierExtension extends ProcessingBlock {

    ContentClassifierExtension(String name) {
        super(name);
    }

    private static final Pattern CLAUSES = Pattern.compile(
            "!?\\d+/([0-9a-fA-F?]{2})+(%([0-9a-fA-F?]{2})+)?(\\s+!?\\d+/([0-9a-fA-F?]{2})+(%([0-9a-fA-F?]{2})+)?)*");

    @Override
    public void check() {
        requireRules("pattern", "patterns");
        for (int i = 0; i < size("pattern"); i++) {
            String p = get("pattern").get(i).asText().trim();
            if (!p.equals("-") && !CLAUSES.matcher(p).matches()) {
                throw invalid(
                        ErrorSubtype.BAD_BLOCK,
                        "pattern " + i + ": '" + p + "' is not a list of offset/value[%mask] clauses");
            }
        }
    }
}
