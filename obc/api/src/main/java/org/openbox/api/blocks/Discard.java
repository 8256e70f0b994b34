package org.openbox.api.blocks;

/**
 * Drops every packet. Sink: one input, no outputs.
 *
 * <p>Ports: 1 input, 0 outputs. Class: terminal; spec 5.5.
 * Read handles: count.
 * Write handles: reset_counts.
 * <pre>new Discard("drop")</pre>
 */
public final class Discard extends ProcessingBlock {

    public Discard(String name) {
        super(name);
    }
}
