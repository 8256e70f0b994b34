package org.openbox.controller.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

class ObiPeersTest {

    @Test
    void theDpidExpectedAtAnEndpointIsTheLastSessionsThere() {
        ObiPeers peers = new ObiPeers();
        peers.expect(URI.create("https://10.0.0.5:3636"), 5);
        assertThat(peers.expected("10.0.0.5", 3636)).hasValue(5);
        assertThat(peers.expected("10.0.0.5", 3637)).isEmpty();
        assertThat(peers.expected(null, 3636)).isEmpty();
        // the endpoint passes to OBI 6; OBI 5's session going away leaves it to 6
        peers.expect(URI.create("https://10.0.0.5:3636"), 6);
        peers.forget(URI.create("https://10.0.0.5:3636"), 5);
        assertThat(peers.expected("10.0.0.5", 3636)).hasValue(6);
        peers.forget(URI.create("https://10.0.0.5:3636"), 6);
        assertThat(peers.expected("10.0.0.5", 3636)).isEmpty();
        assertThat(peers.size()).isZero();
    }

    @Test
    void anIpv6LiteralMatchesWithOrWithoutBrackets() {
        ObiPeers peers = new ObiPeers();
        peers.expect(URI.create("https://[::1]:3636"), 8);
        assertThat(peers.expected("::1", 3636)).hasValue(8);
        assertThat(peers.expected("[::1]", 3636)).hasValue(8);
    }
}
