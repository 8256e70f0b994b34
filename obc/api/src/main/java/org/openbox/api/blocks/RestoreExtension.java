package org.openbox.api.blocks;

import java.util.Set;
import org.openbox.protocol.ErrorSubtype;

/**
 * Puts the bytes {@link Store} kept under the key for the packet's session back into the
 * packet, from an offset or from the start of a protocol (eth, ip, tcp, udp, l4, payload).
 * Output 0: restored; output 1: not restored. Exactly one of offset or protocol is given.
 *
 * <p>Conveniences beside the generated {@link Restore}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/Restore.json.
 * <pre>new Restore("back", "request").protocol("payload")</pre>
 */
public abstract class RestoreExtension extends ProcessingBlock {

    /** The protocols whose start a restore may begin at. */
    public static final Set<String> PROTOCOLS = Set.of("eth", "ip", "tcp", "udp", "l4", "payload");

    RestoreExtension(String name) {
        super(name);
    }

    @Override
    public void check() {
        if (get("key").asText().isEmpty()) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "key must not be empty");
        }
        if ((get("offset") == null) == (get("protocol") == null)) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "needs exactly one of offset and protocol");
        }
        if (get("protocol") != null && !PROTOCOLS.contains(get("protocol").asText())) {
            throw invalid(
                    ErrorSubtype.BAD_BLOCK,
                    "protocol must be one of eth, ip, tcp, udp, l4, payload, got '"
                            + get("protocol").asText() + "'");
        }
    }
}
