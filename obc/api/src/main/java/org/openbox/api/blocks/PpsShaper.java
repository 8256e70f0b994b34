package org.openbox.api.blocks;

/**
 * Shapes traffic to at most rate packets per second.
 *
 * <p>Ports: 1 input, 1 output. Class: shaper; spec 5.22.
 * Config: rate (number, required).
 * Config: capacity (integer): packets that may wait, per worker.
 * Read handles: rate, length, drops, capacity.
 * Write handles: rate.
 * <pre>new PpsShaper("shape", 100_000)</pre>
 */
public final class PpsShaper extends ProcessingBlock {

    public PpsShaper(String name, double rate) {
        super(name);
        set("rate", rate);
    }

    /** Packets that may wait for their turn, per worker; more are dropped. */
    public PpsShaper capacity(int value) {
        set("capacity", value);
        return this;
    }
}
