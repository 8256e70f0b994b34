package org.openbox.api.blocks;

/**
 * Pops the outer VLAN tag if the frame has one; untagged frames pass unchanged.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.11.
 * <pre>new VlanDecapsulate("untag")</pre>
 */
public final class VlanDecapsulate extends ProcessingBlock {

    public VlanDecapsulate(String name) {
        super(name);
    }
}
