package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** POST /message/{type}: every up message is accepted; bad input gets 400 with a JSON Error. */
class SouthboundTest extends ControllerTestBase {

    private static void post400(String path, String body, String type, String subtype) {
        given().contentType("application/json")
                .body(body)
                .when()
                .post(path)
                .then()
                .statusCode(400)
                .contentType(containsString("json"))
                .body("type", equalTo("Error"))
                .body("error_type", equalTo(type))
                .body("error_subtype", equalTo(subtype));
    }

    @Test
    void bodyThatIsNotJsonIsIllegalArgument() {
        post400("/message/KeepAlive", "{\"type\": \"KeepAlive\", ", "BAD_REQUEST", "ILLEGAL_ARGUMENT");
    }

    @Test
    void unknownTypeIsBadType() {
        post400("/message/Frobnicate", "{\"type\": \"Frobnicate\", \"xid\": 3}", "BAD_REQUEST", "BAD_TYPE");
    }

    @Test
    void bodyTypeOtherThanPathIsBadType() {
        post400(
                "/message/KeepAlive",
                "{\"type\": \"Hello\", \"xid\": 3, \"dpid\": 1, \"version\": \"1.1.0\"," + " \"capabilities\": {}}",
                "BAD_REQUEST",
                "BAD_TYPE");
    }

    @Test
    void missingFieldIsIllegalArgumentAndEchoesXid() {
        given().contentType("application/json")
                .body("{\"type\": \"KeepAlive\", \"xid\": 77}")
                .when()
                .post("/message/KeepAlive")
                .then()
                .statusCode(400)
                .body("error_subtype", equalTo("ILLEGAL_ARGUMENT"))
                .body("xid", equalTo(77));
    }

    @Test
    void badHelloVersionIsBadVersion() {
        post400(
                "/message/Hello",
                "{\"type\": \"Hello\", \"xid\": 1, \"dpid\": 9, \"version\": \"one\"," + " \"capabilities\": {}}",
                "BAD_REQUEST",
                "BAD_VERSION");
    }

    @Test
    void keepAliveFromUnknownObiAsksForHello() {
        post400(
                "/message/KeepAlive", "{\"type\": \"KeepAlive\", \"xid\": 1, \"dpid\": 987654}",
                "BAD_REQUEST", "ILLEGAL_STATE");
    }

    @Test
    void downMessageSentToTheControllerIsUnsupported() {
        post400(
                "/message/BarrierRequest", "{\"type\": \"BarrierRequest\", \"xid\": 1}",
                "UNSUPPORTED", "UNSUPPORTED_MESSAGE");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                // first: Alert and Log are taken only from an OBI with a session
                "Hello|{\"type\": \"Hello\", \"xid\": 5, \"dpid\": 424243, \"version\": \"1.1.0\", \"capabilities\": {}, \"source_addr\": \"127.0.0.1\", \"source_port\": 9}",
                "ListCapabilitiesResponse|{\"type\": \"ListCapabilitiesResponse\", \"xid\": 5, \"capabilities\": {}}",
                "SetParametersResponse|{\"type\": \"SetParametersResponse\", \"xid\": 5}",
                "GetParametersResponse|{\"type\": \"GetParametersResponse\", \"xid\": 5, \"parameters\": {\"keepalive_interval\": 1}}",
                "GlobalStatsResponse|{\"type\": \"GlobalStatsResponse\", \"xid\": 5, \"stats\": {\"uptime\": 3}}",
                "ReadResponse|{\"type\": \"ReadResponse\", \"xid\": 5, \"block_id\": \"b\", \"read_handle\": \"count\", \"result\": 4}",
                "WriteResponse|{\"type\": \"WriteResponse\", \"xid\": 5, \"block_id\": \"b\", \"write_handle\": \"reset_counts\"}",
                "SetProcessingGraphResponse|{\"type\": \"SetProcessingGraphResponse\", \"xid\": 5}",
                "Error|{\"type\": \"Error\", \"xid\": 5, \"error_type\": \"BAD_REQUEST\", \"error_subtype\": \"BAD_GRAPH\", \"message\": \"x\"}",
                "Alert|{\"type\": \"Alert\", \"xid\": 5, \"origin_dpid\": 424243, \"messages\": []}",
                "Log|{\"type\": \"Log\", \"xid\": 5, \"origin_dpid\": 424243, \"messages\": []}",
                "AddCustomModuleResponse|{\"type\": \"AddCustomModuleResponse\", \"xid\": 5}",
                "RemoveCustomModuleResponse|{\"type\": \"RemoveCustomModuleResponse\", \"xid\": 5}"
            })
    void everyUpMessageIsAccepted(String type, String body) {
        given().contentType("application/json")
                .body(body)
                .when()
                .post("/message/" + type)
                .then()
                .statusCode(200);
    }
}
