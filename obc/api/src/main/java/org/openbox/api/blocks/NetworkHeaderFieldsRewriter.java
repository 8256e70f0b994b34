package org.openbox.api.blocks;

/**
 * Rewrites the configured header fields of packets that have the corresponding header; checksums are not recomputed.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.14.
 * Config: eth_dst (string), eth_src (string), eth_type (integer), ipv4_proto (integer), ipv4_src (string), ipv4_dst (string), ipv4_dscp (integer), ipv4_ecn (integer), ipv4_ttl (integer), tcp_src (integer), tcp_dst (integer), udp_src (integer), udp_dst (integer).
 * Read handles: eth_dst, eth_src, eth_type, ipv4_proto, ipv4_src, ipv4_dst, ipv4_dscp, ipv4_ecn, ipv4_ttl, tcp_src, tcp_dst, udp_src, udp_dst.
 * Write handles: eth_dst, eth_src, eth_type, ipv4_proto, ipv4_src, ipv4_dst, ipv4_dscp, ipv4_ecn, ipv4_ttl, tcp_src, tcp_dst, udp_src, udp_dst.
 * <pre>new NetworkHeaderFieldsRewriter("rw").ipv4Dst("10.0.0.2").tcpDst(8080)</pre>
 */
public final class NetworkHeaderFieldsRewriter extends ProcessingBlock {

    public NetworkHeaderFieldsRewriter(String name) {
        super(name);
    }

    /** Ethernet destination MAC address. */
    public NetworkHeaderFieldsRewriter ethDst(String value) {
        set("eth_dst", value);
        return this;
    }

    /** Ethernet source MAC address. */
    public NetworkHeaderFieldsRewriter ethSrc(String value) {
        set("eth_src", value);
        return this;
    }

    /** Ethernet type (or the next protocol after a VLAN tag). */
    public NetworkHeaderFieldsRewriter ethType(int value) {
        set("eth_type", value);
        return this;
    }

    /** IPv4 protocol. */
    public NetworkHeaderFieldsRewriter ipv4Proto(int value) {
        set("ipv4_proto", value);
        return this;
    }

    /** IPv4 source address (dotted quad). */
    public NetworkHeaderFieldsRewriter ipv4Src(String value) {
        set("ipv4_src", value);
        return this;
    }

    /** IPv4 destination address (dotted quad). */
    public NetworkHeaderFieldsRewriter ipv4Dst(String value) {
        set("ipv4_dst", value);
        return this;
    }

    /** IPv4 DSCP, 0..63. */
    public NetworkHeaderFieldsRewriter ipv4Dscp(int value) {
        set("ipv4_dscp", value);
        return this;
    }

    /** IPv4 ECN, 0..3. */
    public NetworkHeaderFieldsRewriter ipv4Ecn(int value) {
        set("ipv4_ecn", value);
        return this;
    }

    /** IPv4 TTL, 0..255. */
    public NetworkHeaderFieldsRewriter ipv4Ttl(int value) {
        set("ipv4_ttl", value);
        return this;
    }

    /** TCP source port. */
    public NetworkHeaderFieldsRewriter tcpSrc(int value) {
        set("tcp_src", value);
        return this;
    }

    /** TCP destination port. */
    public NetworkHeaderFieldsRewriter tcpDst(int value) {
        set("tcp_dst", value);
        return this;
    }

    /** UDP source port. */
    public NetworkHeaderFieldsRewriter udpSrc(int value) {
        set("udp_src", value);
        return this;
    }

    /** UDP destination port. */
    public NetworkHeaderFieldsRewriter udpDst(int value) {
        set("udp_dst", value);
        return this;
    }

    @Override
    public void check() {
        for (String p : new String[] {"tcp_src", "tcp_dst", "udp_src", "udp_dst", "eth_type"}) {
            requireRange(p, 0, 0xffff);
        }
        requireRange("ipv4_proto", 0, 255);
        requireRange("ipv4_ttl", 0, 255);
        requireRange("ipv4_dscp", 0, 63);
        requireRange("ipv4_ecn", 0, 3);
    }
}
