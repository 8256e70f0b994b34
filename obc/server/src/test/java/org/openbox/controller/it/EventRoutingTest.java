package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.openbox.api.event.AlertEvent;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.SetProcessingGraphRequest;

/** Alerts reach only the application owning the block; OBI errors reach the apps concerned. */
class EventRoutingTest extends ControllerTestBase {

    @Test
    void alertReachesOnlyItsOwner() throws Exception {
        TestObi obi = connected(31);
        List<String> ipsAlert = mergedBlocksOnlyOf(31, "ips", "ips_alert");
        List<String> sshAlert = mergedBlocksOnlyOf(31, "fw", "ssh_alert");
        assertThat(ipsAlert).isNotEmpty();
        assertThat(sshAlert).isNotEmpty();

        assertThat(obi.alert(ipsAlert.get(0), "seen by ips").statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> ips.alerts.stream().anyMatch(a -> a.dpid() == 31));
        AlertEvent got =
                ips.alerts.stream().filter(a -> a.dpid() == 31).findFirst().orElseThrow();
        assertThat(got.block()).isEqualTo("ips_alert");
        assertThat(got.message()).isEqualTo("seen by ips");
        assertThat(got.packet()).containsExactly(0, 1, 2); // "AAEC" in base64

        assertThat(obi.alert(sshAlert.get(0), "ssh attempt").statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> fw.alerts.stream().anyMatch(a -> a.dpid() == 31));
        Thread.sleep(200); // give a wrongly routed copy time to arrive
        assertThat(fw.alerts.stream().filter(a -> a.dpid() == 31).map(AlertEvent::block))
                .containsExactly("ssh_alert");
        assertThat(ips.alerts.stream().filter(a -> a.dpid() == 31).map(AlertEvent::block))
                .containsExactly("ips_alert");

        List<Map<String, Object>> recent =
                given().get("/api/alerts?limit=1000").jsonPath().getList("findAll { it.dpid == 31 }");
        assertThat(recent)
                .extracting(m -> m.get("app") + "/" + m.get("block"))
                .containsExactly("ips/ips_alert", "fw/ssh_alert");
        // filtered by OBI, application and least severity (the test OBI sends severity 3)
        assertThat(given().get("/api/alerts?dpid=31").jsonPath().getList("block"))
                .containsExactly("ips_alert", "ssh_alert");
        assertThat(given().get("/api/alerts?dpid=31&app=fw").jsonPath().getList("block"))
                .containsExactly("ssh_alert");
        assertThat(given().get("/api/alerts?dpid=31&minSeverity=3&limit=1")
                        .jsonPath()
                        .getList("block"))
                .containsExactly("ssh_alert");
        assertThat(given().get("/api/alerts?dpid=31&minSeverity=4").jsonPath().getList("block"))
                .isEmpty();
        given().get("/actuator/prometheus")
                .then()
                .statusCode(200)
                .body(containsString("openbox_alerts_total{app=\"ips\",severity=\"3\"}"));
    }

    @Test
    void logReachesOnlyItsOwner() throws Exception {
        TestObi obi = connected(34);
        String merged = mergedBlocksOnlyOf(34, "fw", "ssh_alert").get(0);
        assertThat(obi.log(merged, "ssh logged").statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> fw.logs.stream().anyMatch(l -> l.dpid() == 34));
        assertThat(fw.logs.stream()
                        .filter(l -> l.dpid() == 34)
                        .findFirst()
                        .orElseThrow()
                        .block())
                .isEqualTo("ssh_alert");
        Thread.sleep(200);
        assertThat(ips.logs.stream().filter(l -> l.dpid() == 34)).isEmpty();
    }

    @Test
    void alertFromUnknownBlockGoesToNoApplication() throws Exception {
        TestObi obi = connected(32);
        int before = fw.alerts.size() + ips.alerts.size();
        assertThat(obi.alert("no_such_block", "stray").statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> !given().get("/api/alerts?limit=1000")
                .jsonPath()
                .getList("findAll { it.dpid == 32 }")
                .isEmpty());
        assertThat(fw.alerts.size() + ips.alerts.size()).isEqualTo(before);
    }

    @Test
    void rejectedGraphIsAnErrorEventForTheAppsInIt() throws Exception {
        TestObi obi = obi(33);
        obi.refuseWhen(m -> m instanceof SetProcessingGraphRequest r
                ? Optional.of(
                        new ErrorMessage(r.xid(), ErrorType.BAD_REQUEST, ErrorSubtype.BAD_GRAPH, "no such port", null))
                : Optional.empty());
        obi.hello();
        keepAlive(obi);
        await().atMost(WAIT)
                .until(() -> fw.errors.stream().anyMatch(e -> e.dpid() == 33)
                        && ips.errors.stream().anyMatch(e -> e.dpid() == 33));
        assertThat(fw.errors.stream()
                        .filter(e -> e.dpid() == 33)
                        .findFirst()
                        .orElseThrow()
                        .subtype())
                .isEqualTo(ErrorSubtype.BAD_GRAPH);
        await().atMost(WAIT)
                .untilAsserted(
                        () -> given().get("/api/obis/33").then().body("obi.lastError", containsString("BAD_GRAPH")));
    }
}
