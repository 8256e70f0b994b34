package org.openbox.api.blocks;

import java.util.Set;
import org.openbox.protocol.ErrorSubtype;

/**
 * Identifies the protocol of each packet. Output 0: no listed protocol recognised; output i+1: the first protocol protocols[i] the packet carries (list order decides, e.g. put http before tcp). Protocol names: arp, ipv4, ipv6, icmp, tcp, udp, ftp, http, https, smtp, dns.
 *
 * <p>Conveniences beside the generated {@link ProtocolAnalyzer}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/ProtocolAnalyzer.json.
 * <pre>new ProtocolAnalyzer("pa").protocols("http", "tcp")  // 0 none, 1 http, 2 tcp</pre>
 */
public abstract class ProtocolAnalyzerExtension extends ProcessingBlock {

    ProtocolAnalyzerExtension(String name) {
        super(name);
    }

    /** Protocol names an OBI recognises. */
    public static final Set<String> PROTOCOLS =
            Set.of("arp", "ipv4", "ipv6", "icmp", "tcp", "udp", "ftp", "http", "https", "smtp", "dns");

    @Override
    public void check() {
        requireRules("protocols", "protocols");
        for (int i = 0; i < size("protocols"); i++) {
            String p = get("protocols").get(i).asText();
            if (!PROTOCOLS.contains(p)) {
                throw invalid(
                        ErrorSubtype.BAD_BLOCK,
                        "protocols " + i + ": unknown protocol '" + p + "', known: " + PROTOCOLS);
            }
        }
    }
}
