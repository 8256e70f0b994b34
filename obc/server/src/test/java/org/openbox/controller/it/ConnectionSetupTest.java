package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.message.BarrierRequest;
import org.openbox.protocol.message.Message;
import org.openbox.protocol.message.SetParametersRequest;
import org.openbox.protocol.message.SetProcessingGraphRequest;

/** Hello -> SetParametersRequest, SetProcessingGraphRequest, BarrierRequest, in that order. */
class ConnectionSetupTest extends ControllerTestBase {

    @Test
    void helloGetsParametersThenMergedGraphThenBarrier() throws Exception {
        TestObi obi = obi(11);
        assertThat(obi.hello().statusCode()).isEqualTo(200);
        keepAlive(obi);
        obi.await(BarrierRequest.class, 1, WAIT);

        List<String> order = obi.received().stream().map(Message::type).toList();
        assertThat(order).containsSubsequence("SetParametersRequest", "SetProcessingGraphRequest", "BarrierRequest");
        assertThat(order.indexOf("SetProcessingGraphRequest")).isLessThan(order.indexOf("BarrierRequest"));

        SetParametersRequest params = obi.received(SetParametersRequest.class).get(0);
        assertThat(params.parameters().get("keepalive_interval").asLong()).isEqualTo(1);

        // the merged graph holds both running applications' work, not the refused one's
        SetProcessingGraphRequest graph =
                obi.received(SetProcessingGraphRequest.class).get(0);
        Set<String> types = graph.blocks().stream().map(Block::type).collect(Collectors.toSet());
        assertThat(types).contains("HeaderClassifier", "Alert", "FromDevice", "ToDevice");
        long alertBlocks =
                graph.blocks().stream().filter(b -> b.type().equals("Alert")).count();
        assertThat(alertBlocks).isGreaterThanOrEqualTo(2);
    }

    @Test
    void obiIsListedWithEndpointAndGraphProvenance() throws Exception {
        TestObi obi = connected(12);
        given().when().get("/api/obis").then().statusCode(200).body("dpid", hasItem(12));
        given().when()
                .get("/api/obis/12")
                .then()
                .statusCode(200)
                .body("obi.state", equalTo("UP"))
                .body("obi.endpoint", equalTo("http://127.0.0.1:" + obi.port()))
                .body("obi.apps", equalTo(List.of("fw", "ips")));
        await().atMost(WAIT).untilAsserted(() -> given().when()
                .get("/api/obis/12")
                .then()
                .body("obi.graphStatus", org.hamcrest.Matchers.startsWith("running")));
        given().when()
                .get("/api/obis/12/graph")
                .then()
                .statusCode(200)
                .body("graph.blocks.size()", org.hamcrest.Matchers.greaterThan(0))
                .body("provenance.values().flatten().app", hasItem("fw"))
                .body("provenance.values().flatten().block", hasItem("ips_alert"))
                // no traffic classes configured: the applications are chained
                .body("composition", equalTo("chain"))
                .body("report", org.hamcrest.Matchers.startsWith("composition: chain"));
        given().when().get("/api/obis/999999").then().statusCode(404);
    }
}
