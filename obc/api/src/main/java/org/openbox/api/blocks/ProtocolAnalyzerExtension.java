package org.openbox.api.blocks;

import java.util.Set;
import org.openbox.protocol.ErrorSubtype;

/**
 * Identifies the protocol of each packet. Output 0: no listed protocol recognised; output i+1: the first protocol protocols[i] the packet carries (list order decides, e.g. put http before tcp). Protocol names: arp, ipv4, ipv6, icmp, tcp, udp, ftp, http, https, smtp, dns.
 *
 * <p>Ports: 1 input, one output per element of protocols, plus 1. Class: classifier; spec 5.27.
 * Config: protocols (string[], required).
 * Read handles: count_i, byte_count_i, rate_i, byte_rate_i.
 * Write handles: reset_i, reset_all_counts.
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
                throw invalid(ErrorSubtype.BAD_BLOCK, "protocols " + i + ": unknown protocol '" + p + "', known: " + PROTOCOLS);
            }
        }
    }
}
