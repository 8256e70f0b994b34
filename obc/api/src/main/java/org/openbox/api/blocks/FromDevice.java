package org.openbox.api.blocks;

/**
 * Reads packets from a network device (a kernel interface or a DPDK port). Source: no inputs, one output.
 *
 * <p>Ports: 0 inputs, 1 output. Class: terminal; spec 5.1.
 * Config: devname (string, required), sniffer (bool), promisc (bool).
 * Read handles: count, byte_count, rate, byte_rate, drops.
 * Write handles: reset_counts.
 * <pre>new FromDevice("in", "eth0").promisc(true)</pre>
 */
public final class FromDevice extends ProcessingBlock {

    public FromDevice(String name, String devname) {
        super(name);
        set("devname", devname);
    }

    /** Sniffer mode: the kernel also sees the packets. */
    public FromDevice sniffer(boolean value) {
        set("sniffer", value);
        return this;
    }

    /** Put the device in promiscuous mode. */
    public FromDevice promisc(boolean value) {
        set("promisc", value);
        return this;
    }
}
