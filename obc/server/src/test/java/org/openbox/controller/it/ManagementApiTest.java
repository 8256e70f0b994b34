package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

import org.junit.jupiter.api.Test;

/** OpenAPI description, actuator health and Prometheus metrics, the web UI. */
class ManagementApiTest extends ControllerTestBase {

    @Test
    void openApiDescribesTheManagementApi() {
        given().get("/v3/api-docs")
                .then()
                .statusCode(200)
                .body("openapi", notNullValue())
                .body("paths", org.hamcrest.Matchers.hasKey("/api/obis"))
                .body("paths", org.hamcrest.Matchers.hasKey("/api/obis/{dpid}/graph"))
                .body("paths", org.hamcrest.Matchers.hasKey("/api/apps/{name}/start"))
                .body("paths", org.hamcrest.Matchers.hasKey("/api/alerts"));
    }

    @Test
    void healthAndPrometheusRespond() throws Exception {
        connected(61);
        given().get("/api/obis/61").then().statusCode(200);
        given().get("/actuator/health").then().statusCode(200).body("status", equalTo("UP"));
        given().get("/actuator/prometheus")
                .then()
                .statusCode(200)
                .body(containsString("openbox_obis{state=\"up\""))
                .body(containsString("openbox_obis{state=\"down\""))
                .body(containsString("openbox_messages_total{direction=\"up\",type=\"Hello\""))
                .body(containsString("openbox_roundtrip_seconds_count{type=\"SetProcessingGraphRequest\""))
                // the southbound hot path is counted by openbox_messages_total only, the API by Spring too
                .body(org.hamcrest.Matchers.not(containsString("uri=\"/message/{type}\"")))
                .body(containsString("uri=\"/api/obis/{dpid}\""));
    }

    @Test
    void webUiIsServed() {
        given().get("/")
                .then()
                .statusCode(200)
                .contentType(containsString("text/html"))
                .body(containsString("dashboard/main.js"))
                .body(containsString("dashboard/style.css"));
        // the dashboard's modules, served as they are (no build step), read the management API
        given().get("/dashboard/main.js")
                .then()
                .statusCode(200)
                .contentType(containsString("javascript"))
                .body(containsString("/api/obis"))
                .body(containsString("/api/apps"))
                .body(containsString("/api/me"));
        given().get("/dashboard/alerts.js").then().statusCode(200).body(containsString("/api/alerts/stream"));
        given().get("/dashboard/obi.js")
                .then()
                .statusCode(200)
                .body(containsString("/counters"))
                .body(containsString("/rules?dpid="));
        given().auth().none().get("/dashboard/main.js").then().statusCode(401);
    }

    @Test
    void obiQueriesAreAnsweredByTheObi() throws Exception {
        connected(62);
        given().get("/api/obis/62/stats").then().statusCode(200).body("uptime", equalTo(1));
        // the interval the controller set at connection time, as the OBI reports it
        given().get("/api/obis/62/parameters").then().statusCode(200).body("keepalive_interval", equalTo(1));
        given().get("/api/obis/62/capabilities").then().statusCode(200);
        given().get("/api/obis/424299/stats").then().statusCode(404);
    }
}
