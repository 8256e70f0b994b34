package org.openbox.api.blocks;

/**
 * Decrements the IPv4 TTL (IPv6 hop limit) and updates the checksum. Output 0: forwarded packets; output 1: packets whose TTL was already <= 1 (expired).
 *
 * <p>Ports: 1 input, 2 outputs. Class: modifier; spec 5.12.
 * Config: active (bool).
 * Read handles: count, byte_count, rate, byte_rate, active.
 * Write handles: reset_counts, active.
 * <pre>new DecIpTtl("ttl")  // output 1: expired</pre>
 */
public final class DecIpTtl extends ProcessingBlock {

    public DecIpTtl(String name) {
        super(name);
    }

    /** When false, packets pass unchanged on output 0. */
    public DecIpTtl active(boolean value) {
        set("active", value);
        return this;
    }
}
