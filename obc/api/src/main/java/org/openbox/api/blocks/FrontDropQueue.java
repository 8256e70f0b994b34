package org.openbox.api.blocks;

/**
 * FIFO queue that drops from the front (the oldest packet) when full.
 *
 * <p>Ports: 1 input, 1 output. Class: shaper; spec 5.19.
 * Config: capacity (integer, required).
 * Read handles: length, highwater_length, capacity.
 * Write handles: reset_counts, reset.
 * <pre>new FrontDropQueue("q", 1000)</pre>
 */
public final class FrontDropQueue extends ProcessingBlock {

    public FrontDropQueue(String name, int capacity) {
        super(name);
        set("capacity", capacity);
    }

    @Override
    public void check() {
        requireRange("capacity", 1, Integer.MAX_VALUE);
    }
}
