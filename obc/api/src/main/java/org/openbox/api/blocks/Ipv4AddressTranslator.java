package org.openbox.api.blocks;

import org.openbox.catalogue.InputSpecs;
import org.openbox.protocol.ErrorSubtype;

/**
 * Network address and port translator for TCP and UDP. One input per input_spec; packets of a known flow are rewritten by the mapping table and sent to its output, others are handled by the input_spec of their input port: "discard", "pass OUT", "keep FOUT ROUT" or "pattern SADDR SPORT DADDR DPORT FOUT ROUT" (any pattern field may be "-"; SPORT may be a range "L-H", optionally followed by '#' for sequential or '?' for random allocation). Outputs: the largest output number named in input_spec, plus one.
 *
 * <p>Ports: one input per element of input_spec, outputs computed from input_spec. Class: modifier; spec 5.13.
 * Config: input_spec (string[], required), tcp_timeout (integer), tcp_done_timeout (integer), tcp_nodata_timeout (integer), tcp_guarantee (integer), udp_timeout (integer), udp_streaming_timeout (integer), udp_guarantee (integer), reap_interval (integer), mapping_capacity (integer).
 * Read handles: mappings_count, mapping_failures, length, capacity, tcp_mappings, udp_mappings.
 * Write handles: capacity.
 * <pre>new Ipv4AddressTranslator("nat").inputSpec("pattern 1.0.0.1 1024-65535 - - 0 1", "discard")</pre>
 */
public final class Ipv4AddressTranslator extends ProcessingBlock {

    public Ipv4AddressTranslator(String name) {
        super(name);
    }

    /** Seconds after which an established TCP mapping times out. */
    public Ipv4AddressTranslator tcpTimeout(int value) {
        set("tcp_timeout", value);
        return this;
    }

    /** Seconds after which a completed (FIN/RST) TCP mapping times out. */
    public Ipv4AddressTranslator tcpDoneTimeout(int value) {
        set("tcp_done_timeout", value);
        return this;
    }

    /** Seconds after which a TCP mapping without data in both directions times out. */
    public Ipv4AddressTranslator tcpNodataTimeout(int value) {
        set("tcp_nodata_timeout", value);
        return this;
    }

    /** Seconds a TCP mapping is kept at least after each packet. */
    public Ipv4AddressTranslator tcpGuarantee(int value) {
        set("tcp_guarantee", value);
        return this;
    }

    /** Seconds after which a UDP mapping times out. */
    public Ipv4AddressTranslator udpTimeout(int value) {
        set("udp_timeout", value);
        return this;
    }

    /** Seconds after which a streaming UDP mapping (3+ packets, both directions) times out; default udp_timeout. */
    public Ipv4AddressTranslator udpStreamingTimeout(int value) {
        set("udp_streaming_timeout", value);
        return this;
    }

    /** Seconds a UDP mapping is kept at least after each packet. */
    public Ipv4AddressTranslator udpGuarantee(int value) {
        set("udp_guarantee", value);
        return this;
    }

    /** Seconds between sweeps of timed-out mappings. */
    public Ipv4AddressTranslator reapInterval(int value) {
        set("reap_interval", value);
        return this;
    }

    /** Maximum number of mappings; unlimited when absent. */
    public Ipv4AddressTranslator mappingCapacity(int value) {
        set("mapping_capacity", value);
        return this;
    }

    /** Adds to input_spec: one INPUTSPEC per input port. */
    public Ipv4AddressTranslator inputSpec(String... values) {
        for (String v : values) {
            list("input_spec").add(v);
        }
        return this;
    }

    @Override
    public void check() {
        requireRules("input_spec", "input_spec");
        for (int i = 0; i < size("input_spec"); i++) {
            try {
                InputSpecs.outputsOf(get("input_spec").get(i).asText());
            } catch (IllegalArgumentException e) {
                throw invalid(ErrorSubtype.BAD_BLOCK, "input_spec " + i + ": " + e.getMessage());
            }
        }
    }
}
