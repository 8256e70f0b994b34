package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.util.concurrent.ScheduledFuture;
import org.junit.jupiter.api.Test;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.message.BarrierRequest;
import org.openbox.protocol.message.SetParametersRequest;
import org.openbox.protocol.message.SetProcessingGraphRequest;

/** Missed KeepAlives make an OBI DOWN; its return makes it UP with its state pushed again. */
class LivenessTest extends ControllerTestBase {

    @Test
    void missedKeepAlivesThenReturnRepushesState() throws Exception {
        TestObi obi = obi(21);
        obi.hello();
        ScheduledFuture<?> alive = keepAlive(obi);
        obi.await(BarrierRequest.class, 1, WAIT);
        await().atMost(WAIT).until(() -> fw.upsOf(21) == 1 && ips.upsOf(21) == 1);
        assertThat(fw.downsOf(21)).isZero();

        alive.cancel(false);
        await().atMost(WAIT).untilAsserted(() -> given().get("/api/obis/21")
                .then()
                .body("obi.state", equalTo("DOWN"))
                .body("obi.downCount", equalTo(1)));
        await().atMost(WAIT).until(() -> fw.downsOf(21) == 1 && ips.downsOf(21) == 1);

        // back: a KeepAlive from the known OBI brings it up and re-pushes everything
        assertThat(obi.keepAlive().statusCode()).isEqualTo(200);
        keepAlive(obi);
        obi.await(SetParametersRequest.class, 2, WAIT);
        obi.await(SetProcessingGraphRequest.class, 2, WAIT);
        obi.await(BarrierRequest.class, 2, WAIT);
        given().get("/api/obis/21").then().body("obi.state", equalTo("UP"));
        await().atMost(WAIT).until(() -> fw.upsOf(21) == 2 && ips.upsOf(21) == 2);
        SetProcessingGraphRequest first =
                obi.received(SetProcessingGraphRequest.class).get(0);
        SetProcessingGraphRequest again =
                obi.received(SetProcessingGraphRequest.class).get(1);
        assertThat(again.blocks()).isEqualTo(first.blocks());
        assertThat(again.connectors()).isEqualTo(first.connectors());
    }

    @Test
    void helloAgainAfterRestartRepushesGraph() throws Exception {
        TestObi obi = connected(22);
        obi.hello();
        obi.await(SetProcessingGraphRequest.class, 2, WAIT);
        obi.await(BarrierRequest.class, 2, WAIT);
        assertThat(fw.upsOf(22)).isEqualTo(1); // it never went down
    }

    /**
     * Until an OBI has accepted the keepalive_interval it sends KeepAlive at the spec's default
     * 10 s: the 2 s keep-alive timeout does not apply yet (three default intervals do); once
     * it has accepted the interval, the timeout does.
     */
    @Test
    void anObiNotYetToldTheIntervalIsHeldToTheDefaultInterval() throws Exception {
        TestObi untold = obi(25);
        untold.neverAnswer(m -> m instanceof SetParametersRequest);
        TestObi told = obi(26);
        untold.hello();
        told.hello();
        untold.await(SetParametersRequest.class, 1, WAIT);
        told.await(SetParametersRequest.class, 1, WAIT);
        // neither sends KeepAlive: the OBI that took the interval is DOWN after the 2 s timeout
        await().atMost(WAIT)
                .untilAsserted(() -> given().get("/api/obis/26").then().body("obi.state", equalTo("DOWN")));
        Thread.sleep(2000); // the other has now been silent for at least twice the timeout
        given().get("/api/obis/25").then().body("obi.state", equalTo("UP")).body("obi.downCount", equalTo(0));
    }

    /**
     * An OBI that takes its graph but never answers and then goes silent must not hold up
     * other OBIs' set-up for the whole graph timeout: going DOWN fails its open requests.
     */
    @Test
    void anObiThatDiesBeforeAnsweringDoesNotHoldUpTheOthers() throws Exception {
        TestObi hung = obi(23);
        hung.neverAnswer(m -> m instanceof SetProcessingGraphRequest);
        hung.hello();
        ScheduledFuture<?> alive = keepAlive(hung);
        hung.await(SetProcessingGraphRequest.class, 1, WAIT);
        alive.cancel(false); // dies with the graph request unanswered

        // its set-up waits behind the hung push until 23 is DOWN (2 s), not for the graph
        // timeout (60 s, longer than WAIT)
        TestObi next = connected(24);
        assertThat(next.received(SetProcessingGraphRequest.class)).hasSize(1);
        await().atMost(WAIT)
                .untilAsserted(() -> given().get("/api/obis/23").then().body("obi.state", equalTo("DOWN")));
    }
}
