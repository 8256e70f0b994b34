package org.openbox.api.blocks;

/**
 * Sends packets to a network device. Sink: one input, no outputs.
 *
 * <p>Ports: 1 input, 0 outputs. Class: terminal; spec 5.3.
 * Config: devname (string, required).
 * <pre>new ToDevice("out", "eth1")</pre>
 */
public final class ToDevice extends ProcessingBlock {

    public ToDevice(String name, String devname) {
        super(name);
        set("devname", devname);
    }
}
