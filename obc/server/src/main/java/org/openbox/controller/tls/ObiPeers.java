package org.openbox.controller.tls;

import java.net.URI;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * Which dpid the controller expects at each OBI endpoint ({@code host:port} of its session),
 * so the TLS handshake with that endpoint can check the OBI's server certificate names that
 * dpid (see {@link ObiTrustManager}). One entry per OBI session.
 */
@Component
public class ObiPeers {

    private final ConcurrentHashMap<String, Long> expected = new ConcurrentHashMap<>();

    /** The OBI session {@code dpid} talks to {@code endpoint}. */
    public void expect(URI endpoint, long dpid) {
        expected.put(key(endpoint.getHost(), endpoint.getPort()), dpid);
    }

    /** The session of {@code dpid} no longer talks to {@code endpoint} (another session's entry is kept). */
    public void forget(URI endpoint, long dpid) {
        expected.remove(key(endpoint.getHost(), endpoint.getPort()), dpid);
    }

    /** The dpid expected at {@code host:port}, if any session talks to it. */
    public OptionalLong expected(String host, int port) {
        Long dpid = host == null ? null : expected.get(key(host, port));
        return dpid == null ? OptionalLong.empty() : OptionalLong.of(dpid);
    }

    int size() {
        return expected.size();
    }

    private static String key(String host, int port) {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1); // IPv6 literal as written in a URI
        }
        return h + "|" + port;
    }
}
