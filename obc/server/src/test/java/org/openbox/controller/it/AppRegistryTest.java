package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.message.SetProcessingGraphRequest;

/** Applications: an invalid one is refused at load, the others run; start/stop at runtime. */
class AppRegistryTest extends ControllerTestBase {

    private Map<String, Object> app(String name) {
        List<Map<String, Object>> apps = given().get("/api/apps")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("$");
        return apps.stream().filter(a -> name.equals(a.get("name"))).findFirst().orElseThrow();
    }

    @Test
    void invalidApplicationIsRefusedAndOthersRun() {
        Map<String, Object> broken = app("broken");
        assertThat(broken.get("state")).isEqualTo("REFUSED");
        assertThat((String) broken.get("error")).contains("out").contains("input");
        assertThat(app("fw").get("state")).isEqualTo("RUNNING");
        assertThat(app("ips").get("state")).isEqualTo("RUNNING");
        given().post("/api/apps/broken/start").then().statusCode(409).body("ok", equalTo(false));
        given().post("/api/apps/nope/start").then().statusCode(404);
    }

    @Test
    void stoppingAnAppRepushesGraphsWithoutIt() throws Exception {
        TestObi obi = connected(51);
        try {
            given().post("/api/apps/ips/stop").then().statusCode(200).body("state", equalTo("STOPPED"));
            obi.await(SetProcessingGraphRequest.class, 2, WAIT);
            assertThat(mergedBlocksOnlyOf(51, "ips", "ips_alert")).isEmpty();
            assertThat(mergedBlocksOnlyOf(51, "fw", "ssh_alert")).isNotEmpty();
            SetProcessingGraphRequest withoutIps =
                    obi.received(SetProcessingGraphRequest.class).get(1);
            assertThat(withoutIps.blocks().stream()
                            .filter(b -> b.type().equals("Alert"))
                            .count())
                    .isEqualTo(1);
        } finally {
            given().post("/api/apps/ips/start").then().statusCode(200).body("state", equalTo("RUNNING"));
        }
        obi.await(SetProcessingGraphRequest.class, 3, WAIT);
        await().atMost(WAIT)
                .until(() -> !mergedBlocksOnlyOf(51, "ips", "ips_alert").isEmpty());
        assertThat(ips.context).isNotNull();
    }
}
