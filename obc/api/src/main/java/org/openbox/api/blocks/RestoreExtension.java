package org.openbox.api.blocks;

import org.openbox.protocol.ErrorSubtype;

/**
 * Reads a packet from the storage server by key and, on success, replaces the packet content from the given offset (or from the start of the given protocol). Output 0: restored; output 1: not restored. One of offset or protocol must be given.
 *
 * <p>Ports: 1 input, 2 outputs. Class: modifier; spec 5.26.
 * Config: key (string, required), offset (integer), protocol (string).
 * Read handles: count, bytes.
 * Write handles: reset.
 * <pre>new Restore("restore", "cache-key").protocol("http")</pre>
 */
public abstract class RestoreExtension extends ProcessingBlock {

    RestoreExtension(String name) {
        super(name);
    }

    @Override
    public void check() {
        if (get("offset") == null && get("protocol") == null) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "needs offset or protocol");
        }
    }
}
