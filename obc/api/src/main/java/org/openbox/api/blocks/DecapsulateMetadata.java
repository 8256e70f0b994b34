package org.openbox.api.blocks;

/**
 * Removes an NSH header and copies the metadata it carries into the packet metadata; packets without NSH pass unchanged. Spec 5.42 describes the block without a configuration; this one is the project's.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.42.
 * Read handles: count, malformed, full.
 * Write handles: reset_counts.
 * <pre>new DecapsulateMetadata("nsh-out")</pre>
 */
public final class DecapsulateMetadata extends ProcessingBlock {

    public DecapsulateMetadata(String name) {
        super(name);
    }
}
