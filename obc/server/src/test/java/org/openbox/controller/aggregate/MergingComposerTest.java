package org.openbox.controller.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.MergeOptions;
import org.openbox.protocol.graph.Graph;

/**
 * The checks the composer keeps between merges follow the placed graphs: a graph a reload
 * replaced, or one made for a single composition, does not stay on the heap.
 */
class MergingComposerTest {
    private static final Catalogue CATALOGUE = Catalogue.load();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** FromDevice eth0 -> HeaderClassifier (TCP to the port, else anything) -> ToDevice eth1. */
    private static Graph firewall(int port) throws Exception {
        return Graph.fromJson((ObjectNode) JSON.readTree("{\"blocks\":["
                + "{\"type\":\"FromDevice\",\"name\":\"in\",\"config\":{\"devname\":\"eth0\"}},"
                + "{\"type\":\"HeaderClassifier\",\"name\":\"c\",\"config\":{\"match\":["
                + "{\"eth_type\":\"0x0800\",\"ip_proto\":6,\"tcp_dst\":" + port + "},{}]}},"
                + "{\"type\":\"Discard\",\"name\":\"drop\",\"config\":{}},"
                + "{\"type\":\"ToDevice\",\"name\":\"out\",\"config\":{\"devname\":\"eth1\"}}],"
                + "\"connectors\":[{\"src\":\"in\",\"src_port\":0,\"dst\":\"c\",\"dst_port\":0},"
                + "{\"src\":\"c\",\"src_port\":0,\"dst\":\"drop\",\"dst_port\":0},"
                + "{\"src\":\"c\",\"src_port\":1,\"dst\":\"out\",\"dst_port\":0}]}"));
    }

    private static ObjectNode match(String json) throws Exception {
        return (ObjectNode) JSON.readTree(json);
    }

    @Test
    void keepsTheChecksOfPlacedGraphsOnly() throws Exception {
        MergingComposer composer = new MergingComposer(() -> CATALOGUE, MergeOptions.defaults());
        Graph a1 = firewall(23), a2 = firewall(25), b = firewall(80);
        composer.compose(List.of(new AppPart("a", 2, a1), new AppPart("b", 1, b)));
        composer.compose(List.of(new AppPart("a", 2, a2), new AppPart("b", 1, b)));
        assertThat(composer.keptChecks()).isEqualTo(3);

        // a's reload placed a2 instead of a1
        composer.retain(g -> g == a2 || g == b);
        assertThat(composer.keptChecks()).isEqualTo(2);

        // a distinct stage merges class-filtered copies, made for that composition alone
        Graph web = firewall(8080), dns = firewall(5353);
        composer.compose(List.of(
                new AppPart("web", 1, web, match("{\"eth_type\":\"0x0800\",\"ip_proto\":6,\"tcp_dst\":80}")),
                new AppPart("dns", 1, dns, match("{\"eth_type\":\"0x0800\",\"ip_proto\":17,\"udp_dst\":53}"))));
        assertThat(composer.keptChecks()).isEqualTo(4);
        composer.retain(g -> g == a2 || g == b || g == web || g == dns);
        assertThat(composer.keptChecks()).isEqualTo(2);
    }
}
