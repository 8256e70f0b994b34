package org.openbox.controller.obi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.merge.Origin;
import org.openbox.merge.Provenance;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

class BlockSupportTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** in -> norm -> out, where norm is app "web"'s block "n" and the terminals are shared by "web" and "fw". */
    private static DeployedGraph graph() {
        Map<String, List<Origin>> origins = Map.of(
                "in", List.of(new Origin("fw", "in"), new Origin("web", "in")),
                "norm", List.of(new Origin("web", "n")),
                "out", List.of(new Origin("fw", "out"), new Origin("web", "out")));
        Provenance.Builder o = new Provenance.Builder();
        origins.forEach(o::block);
        Graph g = new Graph(
                List.of(
                        new Block("FromDevice", "in", JSON.createObjectNode().put("devname", "eth0")),
                        new Block("HtmlNormalizer", "norm", JSON.createObjectNode()),
                        new Block("ToDevice", "out", JSON.createObjectNode().put("devname", "eth1"))),
                List.of(new Connector("in", 0, "norm", 0), new Connector("norm", 0, "out", 0)));
        return new DeployedGraph(7, g, o.build(), List.of("fw", "web"), "test");
    }

    private static ObjectNode hello(String json) throws Exception {
        return (ObjectNode) JSON.readTree(json);
    }

    @Test
    void withoutProcessingBlocksNothingIsRestricted() throws Exception {
        BlockSupport none = BlockSupport.of(hello("{\"proto_messages\": []}"));
        assertThat(none.restricted()).isFalse();
        assertThat(none.missing(graph(), Set.of())).isEmpty();
        assertThat(BlockSupport.of(null).missing(graph(), Set.of())).isEmpty();
        // not a map: no declaration either
        assertThat(BlockSupport.of(hello("{\"processing_blocks\": [\"FromDevice\"]}"))
                        .restricted())
                .isFalse();
    }

    @Test
    void aTypeMissingFromTheHelloIsReportedWithItsApplicationBlocks() throws Exception {
        BlockSupport s = BlockSupport.of(
                hello("{\"processing_blocks\": {\"FromDevice\": [\"FromDevice\"], \"ToDevice\": [\"ToDevice\"]}}"));
        assertThat(s.restricted()).isTrue();
        List<BlockSupport.Missing> missing = s.missing(graph(), Set.of());
        assertThat(missing)
                .containsExactly(new BlockSupport.Missing("norm", "HtmlNormalizer", List.of(new Origin("web", "n"))));
        assertThat(BlockSupport.apps(missing)).containsExactly("web");
        // a custom module installed since the Hello brings the type
        assertThat(s.missing(graph(), Set.of("HtmlNormalizer"))).isEmpty();
    }

    @Test
    void everyTypeDeclaredMeansNothingMissing() throws Exception {
        BlockSupport s = BlockSupport.of(hello("{\"processing_blocks\": {\"FromDevice\": [], \"ToDevice\": [],"
                + " \"HtmlNormalizer\": [\"HtmlNormalizer\"]}}"));
        assertThat(s.missing(graph(), Set.of())).isEmpty();
    }
}
