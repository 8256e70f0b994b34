package org.openbox.api.blocks;

/**
 * Reads packets from a pcap file. Source: no inputs, one output.
 *
 * <p>Ports: 0 inputs, 1 output. Class: terminal; spec 5.2.
 * Config: filename (string, required), timing (bool), active (bool).
 * Read handles: count, byte_count, rate, byte_rate.
 * Write handles: reset_counts, active.
 * <pre>new FromDump("in", "trace.pcap").timing(true)</pre>
 */
public final class FromDump extends ProcessingBlock {

    public FromDump(String name, String filename) {
        super(name);
        set("filename", filename);
    }

    /** Keep the inter-packet delays of the original capture (the first packet is emitted at once). */
    public FromDump timing(boolean value) {
        set("timing", value);
        return this;
    }

    /** When false, emit nothing until the active handle is written. */
    public FromDump active(boolean value) {
        set("active", value);
        return this;
    }
}
