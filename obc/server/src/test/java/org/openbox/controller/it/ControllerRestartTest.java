package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.restassured.RestAssured;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.controller.ControllerApplication;
import org.openbox.controller.testobi.TestObi;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The controller restarted (two Spring contexts in turn on one state directory): an
 * application the operator stopped stays stopped, and alerts from an OBI that kept running
 * through the restart and reports before its Hello are attributed to their application
 * (the graph, hence the provenance, is computed before the alert is routed).
 */
class ControllerRestartTest {

    @TempDir Path stateDir;
    private ConfigurableApplicationContext context;
    private TestObi obi;

    private ConfigurableApplicationContext start() {
        ConfigurableApplicationContext c = new SpringApplicationBuilder(ControllerApplication.class, TestApps.class)
                .properties("server.port=0", "openbox.state-dir=" + stateDir, "openbox.keepalive-interval=1s",
                        "openbox.keepalive-timeout=2s", "openbox.request-timeout=3s")
                .run();
        RestAssured.port = ((WebServerApplicationContext) c).getWebServer().getPort();
        return c;
    }

    @AfterEach
    void close() {
        if (obi != null) obi.close();
        if (context != null) context.close();
    }

    private static String state(String app) {
        List<Map<String, Object>> apps = given().get("/api/apps").jsonPath().getList("$");
        return apps.stream().filter(a -> app.equals(a.get("name"))).map(a -> (String) a.get("state")).findFirst().orElseThrow();
    }

    @Test
    void operatorStopsSurviveARestartAndEarlyAlertsAreAttributed() throws Exception {
        long dpid = 180;
        context = start();
        given().post("/api/apps/lb/stop").then().statusCode(200);
        assertThat(state("lb")).isEqualTo("STOPPED");
        obi = new TestObi(dpid, "http://127.0.0.1:" + RestAssured.port);
        obi.hello();
        await().atMost(Duration.ofSeconds(20)).until(() -> given().get("/api/obis/" + dpid).jsonPath()
                .getList("obi.apps").equals(List.of("fw", "ips")));
        Map<String, List<Map<String, String>>> prov = given().get("/api/obis/" + dpid + "/graph").jsonPath().getMap("provenance");
        String ipsAlert = prov.entrySet().stream()
                .filter(e -> e.getValue().equals(List.of(Map.of("app", "ips", "block", "ips_alert"))))
                .map(Map.Entry::getKey).findFirst().orElseThrow();
        obi.close();
        context.close();
        String saved = Files.readString(stateDir.resolve("controller-state.json"));
        assertThat(saved).contains("\"lb\"").contains("\"stoppedByOperator\" : true");

        context = start();
        assertThat(state("lb")).isEqualTo("STOPPED");
        assertThat(state("fw")).isEqualTo("RUNNING");
        assertThat(given().get("/api/apps").jsonPath().getList("findAll { it.name == 'lb' }.stoppedByOperator"))
                .containsExactly(true);
        // the OBI kept running: its alert comes before any Hello
        obi = new TestObi(dpid, "http://127.0.0.1:" + RestAssured.port);
        assertThat(obi.alert(ipsAlert, "while the controller was away").statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> !given().get("/api/alerts?app=ips").jsonPath()
                .getList("findAll { it.dpid == " + dpid + " }").isEmpty());
        assertThat(given().get("/api/alerts").jsonPath().getList("findAll { it.dpid == " + dpid + " }.app"))
                .containsOnly("ips");
        // started again by the operator: no longer remembered as stopped
        given().post("/api/apps/lb/start").then().statusCode(200);
        assertThat(Files.readString(stateDir.resolve("controller-state.json"))).doesNotContain("\"stoppedByOperator\" : true");
    }
}
