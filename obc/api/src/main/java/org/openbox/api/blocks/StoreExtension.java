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
public abstract class StoreExtension extends ProcessingBlock {

    StoreExtension(String name) {
        super(name);
    }

    @Override
    public void check() {
        if (get("hard_timeout").asDouble() <= 0) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "hard_timeout must be positive");
        }
    }
}
