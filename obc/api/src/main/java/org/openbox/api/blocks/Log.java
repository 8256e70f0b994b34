package org.openbox.api.blocks;

/**
 * Sends a log message to the controller for every packet; the packet passes through unchanged.
 *
 * <p>Ports: 1 input, 1 output. Class: static; spec 5.17.
 * Config: message (string, required), severity (integer), attach_packet (bool), packet_size (integer), app_id (string).
 * <pre>new Log("log", "suspicious packet").severity(2)</pre>
 */
public final class Log extends ProcessingBlock {

    public Log(String name, String message) {
        super(name);
        set("message", message);
    }

    /** Severity, 1 (lowest) .. 5 (highest). */
    public Log severity(int value) {
        set("severity", value);
        return this;
    }

    /** Attach the start of the packet to the message. */
    public Log attachPacket(boolean value) {
        set("attach_packet", value);
        return this;
    }

    /** Bytes of the packet to attach; negative means the whole packet. */
    public Log packetSize(int value) {
        set("packet_size", value);
        return this;
    }

    /** The application the log message is for. */
    public Log appId(String value) {
        set("app_id", value);
        return this;
    }

    @Override
    public void check() {
        requireRange("severity", 1, 5);
    }
}
