package org.openbox.api.blocks;

/**
 * Shapes traffic to at most rate bytes per second.
 *
 * <p>Ports: 1 input, 1 output. Class: shaper; spec 5.21.
 * Config: rate (number, required).
 * Read handles: rate.
 * Write handles: rate.
 * <pre>new BpsShaper("shape", 125_000_000)</pre>
 */
public final class BpsShaper extends ProcessingBlock {

    public BpsShaper(String name, double rate) {
        super(name);
        set("rate", rate);
    }
}
