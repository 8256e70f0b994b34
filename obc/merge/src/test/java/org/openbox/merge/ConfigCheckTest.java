package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * A classifier's header matches are parsed once, by the merge, and the rest of its config
 * is checked by the catalogue: a bad config is still reported word for word as the
 * catalogue's check of the whole block reports it.
 */
class ConfigCheckTest {
    private final GraphMerger merger = new GraphMerger(TestSupport.INFO);

    private static final ObjectMapper M = new ObjectMapper().configure(JsonParser.Feature.ALLOW_SINGLE_QUOTES, true);

    /** in -> cls -> out, built without the graph reader (which checks header matches too). */
    private static Graph around(String type, String config) {
        try {
            return new Graph(
                    List.of(
                            new Block("FromDevice", "in", (ObjectNode) M.readTree("{'devname':'eth0'}")),
                            new Block(type, "cls", (ObjectNode) M.readTree(config)),
                            new Block("ToDevice", "out", (ObjectNode) M.readTree("{'devname':'eth1'}"))),
                    List.of(new Connector("in", 0, "cls", 0), new Connector("cls", 0, "out", 0)));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private void sameErrorAsTheCatalogue(String type, String config) {
        Graph g = around(type, config);
        Block b = g.blocks().get(1);
        String want = assertThrows(MergeException.class, () -> TestSupport.INFO.validate(b))
                .getMessage();
        MergeException got = assertThrows(
                MergeException.class,
                () -> merger.merge(List.of(new AppGraph("x", 0, g)), Composition.CHAIN, MergeOptions.defaults()));
        assertEquals(want, got.getMessage());
    }

    @Test
    void headerClassifierErrors() {
        String ok = "{'ETH_TYPE':'0x0800','IPV4_SRC':'10.0.0.0/8'}";
        sameErrorAsTheCatalogue(
                "HeaderClassifier", "{'match':[" + ok + "," + ok + ",{'ETH_TYPE':'0x0800','IPV4_SRC':'10.0.0.300'}]}");
        sameErrorAsTheCatalogue("HeaderClassifier", "{'match':[" + ok + ",'eth_type=0x800']}");
        sameErrorAsTheCatalogue("HeaderClassifier", "{'match':[" + ok + ",{'IPV4_SRC':'10.0.0.1'}]}");
        sameErrorAsTheCatalogue("HeaderClassifier", "{'match':[{'ETH_TYPE':'0x0806','IPV4_SRC':'10.0.0.1'}]}");
        sameErrorAsTheCatalogue("HeaderClassifier", "{'match':[{'ETH_TYPE':'0x0800','eth_type':'0x0800'}]}");
        sameErrorAsTheCatalogue("HeaderClassifier", "{'match':[" + ok + "],'colour':'red'}");
        sameErrorAsTheCatalogue("HeaderClassifier", "{'match':{'ETH_TYPE':'0x0800'}}");
        sameErrorAsTheCatalogue("HeaderClassifier", "{}");
    }

    @Test
    void headerPayloadClassifierErrors() {
        String pm = "'payload_match':[{'pattern':'GET'}]";
        sameErrorAsTheCatalogue("HeaderPayloadClassifier", "{'match':[{'header_match':null," + pm + "}]}");
        sameErrorAsTheCatalogue("HeaderPayloadClassifier", "{'match':[{'header_match':'tcp'," + pm + "}]}");
        sameErrorAsTheCatalogue(
                "HeaderPayloadClassifier",
                "{'match':[{'header_match':{'ETH_TYPE':'0x0800','IP_PROTO':'6','TCP_DST':'[80:'}," + pm + "}]}");
        sameErrorAsTheCatalogue(
                "HeaderPayloadClassifier",
                "{'match':[{'header_match':{'ETH_TYPE':'0x0800'},'payload_match':[{'pattern':'GET','is_regex':'yes'}]}]}");
        sameErrorAsTheCatalogue(
                "HeaderPayloadClassifier", "{'match':[{'header_match':{'ETH_TYPE':'0x0800'}," + pm + ",'extra':1}]}");
    }

    @Test
    void aValidClassifierMergesWithItsRules() {
        Graph g = around(
                "HeaderPayloadClassifier",
                "{'match':[{'type':'HeaderPayloadMatch','header_match':{'ETH_TYPE':'0x0800',"
                        + "'IP_PROTO':6,'TCP_DST':80},'payload_match':[{'pattern':'GET','is_regex':false}]},{'header_match':{}}]}");
        MergeResult r = merger.merge(List.of(new AppGraph("x", 0, g)), Composition.CHAIN, MergeOptions.defaults());
        assertEquals(2, r.report().rulesBefore());
        assertEquals(3, r.merged().blocks().size());
    }
}
