package org.openbox.api.blocks;

/**
 * Marks each packet with the id of its bidirectional flow (IP 5-tuple) in the packet metadata key flow_id; later blocks and the controller see the same id for both directions. Spec 5.33 names the block without a configuration; this one is the project's.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.33.
 * Config: timeout (integer), capacity (integer).
 * Read handles: flows, count.
 * Write handles: reset.
 * <pre>new FlowTracker("flows").timeout(60)</pre>
 */
public final class FlowTracker extends ProcessingBlock {

    public FlowTracker(String name) {
        super(name);
    }

    /** Seconds of inactivity after which a flow is forgotten. */
    public FlowTracker timeout(int value) {
        set("timeout", value);
        return this;
    }

    /** Maximum number of flows tracked; new flows beyond it get id 0. */
    public FlowTracker capacity(int value) {
        set("capacity", value);
        return this;
    }
}
