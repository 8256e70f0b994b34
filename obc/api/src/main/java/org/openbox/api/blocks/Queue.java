package org.openbox.api.blocks;

/**
 * FIFO queue; drops arriving packets when it holds capacity packets.
 *
 * <p>Ports: 1 input, 1 output. Class: shaper; spec 5.18.
 * Config: capacity (integer, required).
 * Read handles: length, highwater_length, drops, capacity.
 * Write handles: reset_counts, reset.
 * <pre>new Queue("q", 1000)</pre>
 */
public final class Queue extends ProcessingBlock {

    public Queue(String name, int capacity) {
        super(name);
        set("capacity", capacity);
    }

    @Override
    public void check() {
        requireRange("capacity", 1, Integer.MAX_VALUE);
    }
}
