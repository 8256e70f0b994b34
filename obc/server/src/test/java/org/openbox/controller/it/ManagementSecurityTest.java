package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Authentication and roles of the management API and the web UI against the running
 * controller: HTTP Basic, bearer tokens, the UI's login session with its CSRF token, the
 * open liveness probe, and 401/403 answers as JSON.
 */
class ManagementSecurityTest extends ControllerTestBase {

    private static final String APP = "lb";

    @AfterEach
    void appRunsAgain() {
        given().post("/api/apps/" + APP + "/start").then().statusCode(200);
    }

    private static RequestSpecification anonymous() {
        return given().auth().none();
    }

    private static RequestSpecification viewer() {
        return given().auth().preemptive().basic(TestCredentials.VIEWER, TestCredentials.VIEWER_PASSWORD);
    }

    private static String stateOf(String app) {
        return given().get("/api/apps")
                .then()
                .statusCode(200)
                .extract()
                .path("find { it.name == '" + app + "' }.state");
    }

    @Test
    void withoutCredentialsTheApiAnswers401Json() {
        anonymous()
                .get("/api/obis")
                .then()
                .statusCode(401)
                .contentType(containsString("application/json"))
                .header("WWW-Authenticate", containsString("Basic realm=\"openbox\""))
                .body("error", containsString("authentication required"));
        anonymous()
                .post("/api/apps/" + APP + "/stop")
                .then()
                .statusCode(401)
                .body("error", containsString("authentication required"));
        assertThat(stateOf(APP)).isEqualTo("RUNNING");
        anonymous().get("/v3/api-docs").then().statusCode(401);
        anonymous().get("/actuator/prometheus").then().statusCode(401);
    }

    @Test
    void wrongPasswordIs401() {
        given().auth()
                .preemptive()
                .basic(TestCredentials.OPERATOR, "not-the-password")
                .get("/api/obis")
                .then()
                .statusCode(401)
                .body("error", equalTo("invalid credentials"));
        given().auth()
                .preemptive()
                .basic("nobody", "x")
                .post("/api/apps/" + APP + "/stop")
                .then()
                .statusCode(401);
        assertThat(stateOf(APP)).isEqualTo("RUNNING");
    }

    @Test
    void viewerReadsButCannotStopAnApplication() {
        viewer().get("/api/obis").then().statusCode(200);
        viewer().get("/api/apps").then().statusCode(200).body("name", hasItem(APP));
        viewer().get("/v3/api-docs").then().statusCode(200);
        viewer().get("/actuator/prometheus").then().statusCode(200).body(containsString("openbox_obis"));
        viewer().post("/api/apps/" + APP + "/stop")
                .then()
                .statusCode(403)
                .contentType(containsString("application/json"))
                .body("error", equalTo("the OPERATOR role is required for POST /api/apps/" + APP + "/stop"));
        viewer().post("/api/apps/" + APP + "/reload").then().statusCode(403);
        assertThat(stateOf(APP)).isEqualTo("RUNNING");
    }

    @Test
    void operatorStopsAndStartsAnApplication() {
        given().post("/api/apps/" + APP + "/stop").then().statusCode(200).body("state", equalTo("STOPPED"));
        assertThat(stateOf(APP)).isEqualTo("STOPPED");
        given().post("/api/apps/" + APP + "/start").then().statusCode(200).body("state", equalTo("RUNNING"));
    }

    @Test
    void bearerTokensCarryTheirRoles() {
        anonymous()
                .header("Authorization", "Bearer " + TestCredentials.VIEWER_TOKEN)
                .get("/api/apps")
                .then()
                .statusCode(200);
        anonymous()
                .header("Authorization", "Bearer " + TestCredentials.VIEWER_TOKEN)
                .post("/api/apps/" + APP + "/stop")
                .then()
                .statusCode(403);
        assertThat(stateOf(APP)).isEqualTo("RUNNING");
        anonymous()
                .header("Authorization", "Bearer " + TestCredentials.OPERATOR_TOKEN)
                .post("/api/apps/" + APP + "/stop")
                .then()
                .statusCode(200)
                .body("state", equalTo("STOPPED"));
        anonymous()
                .header("Authorization", "Bearer wrong-token")
                .get("/api/apps")
                .then()
                .statusCode(401)
                .body("error", equalTo("invalid bearer token"));
        anonymous()
                .header("Authorization", "Bearer " + "x".repeat(5_000))
                .get("/api/apps")
                .then()
                .statusCode(401);
        anonymous().header("Authorization", "Bearer ").get("/api/apps").then().statusCode(401);
    }

    @Test
    void credentialsHoldForAnswersTheObiGivesLater() throws Exception {
        connected(68); // /stats waits for the OBI's GlobalStatsResponse (an asynchronous answer)
        anonymous()
                .header("Authorization", "Bearer " + TestCredentials.VIEWER_TOKEN)
                .get("/api/obis/68/stats")
                .then()
                .statusCode(200)
                .body("uptime", equalTo(1));
        viewer().get("/api/obis/68/stats").then().statusCode(200).body("uptime", equalTo(1));
        anonymous().get("/api/obis/68/stats").then().statusCode(401);
    }

    @Test
    void healthStaysOpen() {
        anonymous().get("/actuator/health").then().statusCode(200).body("status", equalTo("UP"));
    }

    @Test
    void southboundPathsAreNotAskedForManagementCredentials() {
        // a malformed Hello reaches the southbound handler (its protocol Error), not a 401
        anonymous()
                .contentType("application/json")
                .body("{}")
                .post("/message/Hello")
                .then()
                .statusCode(not(equalTo(401)))
                .statusCode(not(equalTo(403)));
    }

    @Test
    void uiNeedsALoginAndItsScriptsUseTheSession() {
        anonymous()
                .accept("text/html")
                .redirects()
                .follow(false)
                .get("/")
                .then()
                .statusCode(302)
                .header("Location", endsWith("/login"));
        // a script's request without a session: 401, and no Basic challenge (no browser dialog)
        anonymous()
                .header("X-Requested-With", "XMLHttpRequest")
                .get("/api/obis")
                .then()
                .statusCode(401)
                .header("WWW-Authenticate", org.hamcrest.Matchers.nullValue());

        Response form = anonymous().accept("text/html").get("/login");
        form.then().statusCode(200);
        String csrf = form.htmlPath().getString("**.find { it.@name == '_csrf' }.@value");
        Response login = anonymous()
                .redirects()
                .follow(false)
                .cookies(form.cookies())
                .formParams(Map.of(
                        "username", TestCredentials.VIEWER, "password", TestCredentials.VIEWER_PASSWORD, "_csrf", csrf))
                .post("/login");
        login.then().statusCode(302).header("Location", not(containsString("error")));
        String session = login.cookie("JSESSIONID");
        assertThat(session).isNotNull();

        anonymous()
                .accept("text/html")
                .cookie("JSESSIONID", session)
                .get("/")
                .then()
                .statusCode(200)
                .body(containsString("<title>OpenBox dashboard</title>"));
        Response scripts = anonymous()
                .header("X-Requested-With", "XMLHttpRequest")
                .cookie("JSESSIONID", session)
                .get("/api/obis");
        scripts.then().statusCode(200);
        String xsrf = scripts.cookie("XSRF-TOKEN");
        assertThat(xsrf).isNotNull();
        // a viewer's session: the CSRF token is accepted, the role is not enough
        anonymous()
                .cookie("JSESSIONID", session)
                .cookie("XSRF-TOKEN", xsrf)
                .header("X-XSRF-TOKEN", xsrf)
                .post("/api/apps/" + APP + "/stop")
                .then()
                .statusCode(403);
        assertThat(stateOf(APP)).isEqualTo("RUNNING");
    }

    @Test
    void operatorSessionNeedsTheCsrfTokenToAct() {
        Response form = anonymous().accept("text/html").get("/login");
        String csrf = form.htmlPath().getString("**.find { it.@name == '_csrf' }.@value");
        Response login = anonymous()
                .redirects()
                .follow(false)
                .cookies(form.cookies())
                .formParams(Map.of(
                        "username",
                        TestCredentials.OPERATOR,
                        "password",
                        TestCredentials.OPERATOR_PASSWORD,
                        "_csrf",
                        csrf))
                .post("/login");
        login.then().statusCode(302);
        String session = login.cookie("JSESSIONID");
        String xsrf = anonymous().cookie("JSESSIONID", session).get("/api/apps").cookie("XSRF-TOKEN");
        assertThat(xsrf).isNotNull();

        // a forged cross-site POST carries the session cookie but cannot know the token
        anonymous()
                .cookie("JSESSIONID", session)
                .post("/api/apps/" + APP + "/stop")
                .then()
                .statusCode(403)
                .body("error", containsString("CSRF token is missing or wrong"));
        assertThat(stateOf(APP)).isEqualTo("RUNNING");
        anonymous()
                .cookie("JSESSIONID", session)
                .cookie("XSRF-TOKEN", xsrf)
                .header("X-XSRF-TOKEN", xsrf)
                .post("/api/apps/" + APP + "/stop")
                .then()
                .statusCode(200)
                .body("state", equalTo("STOPPED"));
    }
}
