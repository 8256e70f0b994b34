package org.openbox.api.blocks;

/**
 * Pushes an 802.1Q (or 802.1ad) tag onto an Ethernet frame.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.10.
 * Config: vlan_vid (integer, required), vlan_dei (integer), vlan_pcp (integer), ethertype (integer).
 * Read handles: vlan_vid, vlan_pcp, vlan_tci, ethertype.
 * Write handles: vlan_vid, vlan_pcp, vlan_tci, ethertype.
 * <pre>new VlanEncapsulate("tag", 100).vlanPcp(3)</pre>
 */
public final class VlanEncapsulate extends ProcessingBlock {

    public VlanEncapsulate(String name, int vlanVid) {
        super(name);
        set("vlan_vid", vlanVid);
    }

    /** Drop eligible indicator bit, 0 or 1. */
    public VlanEncapsulate vlanDei(int value) {
        set("vlan_dei", value);
        return this;
    }

    /** Priority code point, 0..7. */
    public VlanEncapsulate vlanPcp(int value) {
        set("vlan_pcp", value);
        return this;
    }

    /** Tag protocol identifier: 0x8100 (802.1Q, the default), 0x88a8 (802.1ad) or 0x9100. */
    public VlanEncapsulate ethertype(int value) {
        set("ethertype", value);
        return this;
    }

    @Override
    public void check() {
        requireRange("vlan_vid", 0, 4095);
        requireRange("vlan_dei", 0, 1);
        requireRange("vlan_pcp", 0, 7);
        requireRange("ethertype", 0, 0xffff);
    }
}
