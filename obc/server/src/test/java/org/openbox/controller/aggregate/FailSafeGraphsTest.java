package org.openbox.controller.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.openbox.api.GraphBuilder;
import org.openbox.api.blocks.Alert;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.ToDevice;
import org.openbox.catalogue.Catalogue;
import org.openbox.controller.apps.GraphValidator;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/** The graphs that stand in for an application that cannot run: valid, on the application's own devices. */
class FailSafeGraphsTest {

    private static final Graph APP = new GraphBuilder()
            .chain(new FromDevice("in", "eth0"), new Alert("a").alert("x", 1), new ToDevice("out", "eth1"))
            .build()
            .toGraph();

    private static void valid(Graph g) {
        new GraphValidator(Catalogue.load()).validate(g);
    }

    @Test
    void dropSendsEveryInputToOneDiscard() {
        Graph g = FailSafeGraphs.drop(APP);
        valid(g);
        assertThat(g.blocks()).extracting(Block::type).containsExactly("FromDevice", "Discard");
        assertThat(g.blocks().get(0)).isEqualTo(APP.blocks().get(0));
        assertThat(g.connectors()).containsExactly(new Connector("in", 0, "failsafe-drop", 0));
    }

    @Test
    void passForwardsTheInputToTheApplicationsOutput() {
        Graph g = FailSafeGraphs.pass(APP);
        valid(g);
        assertThat(g.blocks()).extracting(Block::name).containsExactly("in", "out");
        assertThat(g.connectors()).containsExactly(new Connector("in", 0, "out", 0));
    }

    @Test
    void dropClassDropsTheClassAndPassesTheRest() throws Exception {
        ObjectNode cls =
                (ObjectNode) new ObjectMapper().readTree("{\"ETH_TYPE\": 2048, \"IP_PROTO\": 6, \"TCP_DST\": 80}");
        Graph g = FailSafeGraphs.dropClass(APP, cls);
        valid(g);
        assertThat(g.connectors())
                .contains(
                        new Connector("failsafe-class", 0, "failsafe-drop", 0),
                        new Connector("failsafe-class", 1, "out", 0));
        assertThat(g.blocks().stream()
                        .filter(b -> b.name().equals("failsafe-class"))
                        .findFirst()
                        .orElseThrow()
                        .config()
                        .get("match"))
                .hasSize(2);
    }

    @Test
    void aGraphWithoutTerminalsGivesNothing() {
        Graph noOutput = new GraphBuilder()
                .chain(new FromDevice("in", "eth0"), new Discard("d"))
                .build()
                .toGraph();
        assertThat(FailSafeGraphs.pass(noOutput)).isNull();
        assertThat(FailSafeGraphs.drop(noOutput)).isNotNull();
        assertThat(FailSafeGraphs.drop(new Graph(java.util.List.of(), java.util.List.of())))
                .isNull();
    }
}
