package org.openbox.api.blocks;

import org.openbox.protocol.ErrorSubtype;

/**
 * Sends the packet to the storage server under a key; the packet passes through unchanged.
 *
 * <p>Ports: 1 input, 1 output. Class: static; spec 5.25.
 * Config: key (string, required), soft_timeout (number, required), hard_timeout (number, required), packet_size (integer), buffer_size (integer), buffer_timeout (integer).
 * Read handles: count, bytes.
 * Write handles: reset.
 * <pre>new Store("store", "flow-key", 60, 600)</pre>
 */
public final class Store extends ProcessingBlock {

    public Store(String name, String key, double softTimeout, double hardTimeout) {
        super(name);
        set("key", key);
        set("soft_timeout", softTimeout);
        set("hard_timeout", hardTimeout);
    }

    /** Bytes of the packet to store; negative means the whole packet. */
    public Store packetSize(int value) {
        set("packet_size", value);
        return this;
    }

    /** Records to buffer before sending; <= 1 means no buffering. */
    public Store bufferSize(int value) {
        set("buffer_size", value);
        return this;
    }

    /** Longest time in milliseconds a record stays in the buffer. */
    public Store bufferTimeout(int value) {
        set("buffer_timeout", value);
        return this;
    }

    @Override
    public void check() {
        if (get("hard_timeout").asDouble() <= 0) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "hard_timeout must be positive");
        }
    }
}
