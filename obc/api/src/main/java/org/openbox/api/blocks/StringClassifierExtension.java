package org.openbox.api.blocks;

import org.openbox.protocol.ErrorSubtype;

/**
 * What StringClassifier's catalogue entry cannot say: at least one string, and none empty
 * (an empty literal would match every packet).
 * <pre>new StringClassifier("words").strings("cmd.exe", "/etc/passwd").caseInsensitive(true)  // outputs 0, 1</pre>
 */
public abstract class StringClassifierExtension extends ProcessingBlock {

    StringClassifierExtension(String name) {
        super(name);
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
