package org.openbox.api.blocks;

/**
 * Swaps source and destination of the selected layers.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.15.
 * Config: ethernet (bool), ipv4 (bool), ipv6 (bool), tcp (bool), udp (bool).
 * Read handles: ethernet, ipv4, ipv6, tcp, udp.
 * Write handles: ethernet, ipv4, ipv6, tcp, udp.
 * <pre>new NetworkDirectionSwap("swap").ethernet(true).ipv4(true).tcp(true)</pre>
 */
public final class NetworkDirectionSwap extends ProcessingBlock {

    public NetworkDirectionSwap(String name) {
        super(name);
    }

    /** Swap the Ethernet source and destination addresses. */
    public NetworkDirectionSwap ethernet(boolean value) {
        set("ethernet", value);
        return this;
    }

    /** Swap the IPv4 source and destination addresses. */
    public NetworkDirectionSwap ipv4(boolean value) {
        set("ipv4", value);
        return this;
    }

    /** Swap the IPv6 source and destination addresses. */
    public NetworkDirectionSwap ipv6(boolean value) {
        set("ipv6", value);
        return this;
    }

    /** Swap the TCP source and destination ports. */
    public NetworkDirectionSwap tcp(boolean value) {
        set("tcp", value);
        return this;
    }

    /** Swap the UDP source and destination ports. */
    public NetworkDirectionSwap udp(boolean value) {
        set("udp", value);
        return this;
    }
}
