package org.openbox.api.blocks;

import org.openbox.protocol.ErrorSubtype;

/**
 * Keeps a copy of the packet (its first packet_size bytes up to the end of the IP packet, and
 * its key-value metadata) in the OBI's packet store under (key, session), the session being
 * the packet's bidirectional IP 5-tuple; {@link Restore} with the same key reads it back. The
 * packet passes through unchanged.
 *
 * <p>Conveniences beside the generated {@link Store}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/Store.json.
 * <pre>new Store("keep", "request", 0, 30).packetSize(-1)</pre>
 */
public abstract class StoreExtension extends ProcessingBlock {

    StoreExtension(String name) {
        super(name);
    }

    @Override
    public void check() {
        if (get("key").asText().isEmpty()) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "key must not be empty");
        }
        if (get("soft_timeout").asDouble() < 0) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "soft_timeout must be >= 0");
        }
        if (get("hard_timeout").asDouble() <= 0) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "hard_timeout must be positive");
        }
    }
}
