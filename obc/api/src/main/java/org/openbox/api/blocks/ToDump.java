package org.openbox.api.blocks;

/**
 * Writes packets to a pcap file. Sink: one input, no outputs.
 *
 * <p>Ports: 1 input, 0 outputs. Class: terminal; spec 5.4.
 * Config: filename (string, required).
 * <pre>new ToDump("out", "out.pcap")</pre>
 */
public final class ToDump extends ProcessingBlock {

    public ToDump(String name, String filename) {
        super(name);
        set("filename", filename);
    }
}
