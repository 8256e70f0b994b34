package org.openbox.api.blocks;

/**
 * Shapes traffic to at most rate bytes per second.
 *
 * <p>Ports: 1 input, 1 output. Class: shaper; spec 5.21.
 * Config: rate (number, required).
 * Config: capacity (integer): packets that may wait, per worker.
 * Read handles: rate, length, drops, capacity.
 * Write handles: rate.
 * <pre>new BpsShaper("shape", 125_000_000)</pre>
 */
public final class BpsShaper extends ProcessingBlock {

    public BpsShaper(String name, double rate) {
        super(name);
        set("rate", rate);
    }

    /** Packets that may wait for their turn, per worker; more are dropped. */
    public BpsShaper capacity(int value) {
        set("capacity", value);
        return this;
    }
}
