package org.openbox.api.blocks;

import org.openbox.catalogue.InputSpecs;
import org.openbox.protocol.ErrorSubtype;

/**
 * Network address and port translator for TCP and UDP. One input per input_spec; packets of a known flow are rewritten by the mapping table and sent to its output, others are handled by the input_spec of their input port: "discard", "pass OUT", "keep FOUT ROUT" or "pattern SADDR SPORT DADDR DPORT FOUT ROUT" (any pattern field may be "-"; SPORT may be a range "L-H", optionally followed by '#' for sequential or '?' for random allocation). Outputs: the largest output number named in input_spec, plus one.
 *
 * <p>Conveniences beside the generated {@link Ipv4AddressTranslator}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/Ipv4AddressTranslator.json.
 * <pre>new Ipv4AddressTranslator("nat").inputSpec("pattern 1.0.0.1 1024-65535 - - 0 1", "discard")</pre>
 */
public abstract class Ipv4AddressTranslatorExtension extends ProcessingBlock {

    Ipv4AddressTranslatorExtension(String name) {
        super(name);
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
