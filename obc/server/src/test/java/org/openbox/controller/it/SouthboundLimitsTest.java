package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.restassured.RestAssured;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openbox.controller.ControllerApplication;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.message.SetParametersRequest;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Hard limits and OBI identity on the southbound channel, over real HTTP: forged Hellos and
 * KeepAlives for a live dpid, deep and oversized bodies, and sessions of OBIs that never
 * answer or are long gone. Each attack is refused with a protocol Error and leaves the
 * genuine OBI's session as it was. Small limits here keep the test fast.
 */
@SpringBootTest(
        classes = ControllerApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "openbox.keepalive-interval=1s",
            "openbox.keepalive-timeout=2s",
            "openbox.deadline-check-interval=50ms",
            "openbox.request-timeout=2s",
            "openbox.state-dir=target/test-state/${random.uuid}",
            "openbox.insecure=true",
            "openbox.limits.max-body=1MB",
            "openbox.limits.max-obis=40",
            "openbox.limits.setup-timeout=8s",
            "openbox.limits.down-expiry=3s"
        })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SouthboundLimitsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();

    @LocalServerPort
    int port;

    private final List<TestObi> obis = new ArrayList<>();
    private final ScheduledExecutorService keepAlives = Executors.newSingleThreadScheduledExecutor();

    @BeforeEach
    void restAssured() {
        RestAssured.port = port;
        TestCredentials.asOperator();
    }

    @AfterEach
    void close() {
        keepAlives.shutdownNow();
        obis.forEach(TestObi::close);
    }

    private TestObi live(long dpid) throws Exception {
        TestObi o = new TestObi(dpid, "http://127.0.0.1:" + port);
        obis.add(o);
        assertThat(o.hello().statusCode()).isEqualTo(200);
        keepAlives.scheduleAtFixedRate(
                () -> {
                    try {
                        o.keepAlive();
                    } catch (RuntimeException ignored) {
                        // the controller is going away at the end of a test
                    }
                },
                200,
                200,
                TimeUnit.MILLISECONDS);
        o.await(SetParametersRequest.class, 1, WAIT);
        return o;
    }

    private static JsonNode obi(long dpid) {
        return given().get("/api/obis/" + dpid).then().statusCode(200).extract().as(JsonNode.class);
    }

    private static String hello(long dpid, int sourcePort) {
        return "{\"type\":\"Hello\",\"xid\":1,\"dpid\":" + dpid + ",\"version\":\"1.1.0\",\"capabilities\":{},"
                + "\"source_addr\":\"127.0.0.1\",\"source_port\":" + sourcePort + "}";
    }

    /** A raw HTTP/1.1 POST from the given local address; answers {status, body}. */
    private String[] rawPost(String localAddr, String path, String body) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName(localAddr), 0));
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(10_000);
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            String head = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + b.length + "\r\nConnection: close\r\n\r\n";
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(b);
            out.flush();
            return parse(readAll(s.getInputStream()));
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        in.transferTo(buf);
        return buf.toString(StandardCharsets.UTF_8);
    }

    /** One HTTP response (headers, then Content-Length bytes), without waiting for the connection to close. */
    private static String readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            head.write(c);
            String h = head.toString(StandardCharsets.US_ASCII);
            if (h.endsWith("\r\n\r\n")) {
                var m = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)")
                        .matcher(h);
                byte[] body = in.readNBytes(m.find() ? Integer.parseInt(m.group(1)) : 0);
                return h + new String(body, StandardCharsets.UTF_8);
            }
        }
        return head.toString(StandardCharsets.UTF_8);
    }

    private static String[] parse(String response) {
        String status = response.substring(9, 12);
        int bodyAt = response.indexOf("\r\n\r\n");
        return new String[] {status, bodyAt < 0 ? "" : response.substring(bodyAt + 4)};
    }

    private static void assertError(String[] answer, String status, String type, String subtype) throws IOException {
        assertThat(answer[0]).as(answer[1]).isEqualTo(status);
        JsonNode err = JSON.readTree(answer[1].substring(answer[1].indexOf('{')));
        assertThat(err.path("type").asText()).isEqualTo("Error");
        assertThat(err.path("error_type").asText()).isEqualTo(type);
        assertThat(err.path("error_subtype").asText()).isEqualTo(subtype);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void helloForALiveDpidFromAnotherEndpointIsRefusedAndTheSessionKept() throws Exception {
        TestObi genuine = live(7101);
        String endpoint = obi(7101).path("obi").path("endpoint").asText();
        assertThat(endpoint).endsWith(":" + genuine.port());

        TestObi forger = new TestObi(7101, "http://127.0.0.1:" + port);
        obis.add(forger);
        var answer = forger.hello();
        assertThat(answer.statusCode()).isEqualTo(403);
        JsonNode err = JSON.readTree(answer.body());
        assertThat(err.path("error_type").asText()).isEqualTo("FORBIDDEN");
        assertThat(err.path("error_subtype").asText()).isEqualTo("NOT_PERMITTED");
        // the same endpoint claimed from another address is refused too
        assertError(
                rawPost("127.0.0.2", "/message/Hello", hello(7101, genuine.port())),
                "403",
                "FORBIDDEN",
                "NOT_PERMITTED");

        Thread.sleep(500);
        assertThat(forger.received())
                .as("the forger got nothing from the controller")
                .isEmpty();
        assertThat(obi(7101).path("obi").path("endpoint").asText()).isEqualTo(endpoint);
        assertThat(obi(7101).path("obi").path("state").asText()).isEqualTo("UP");
        // the genuine OBI's own Hello (a restart at the same endpoint) is still accepted
        assertThat(genuine.hello().statusCode()).isEqualTo(200);
    }

    @Test
    void theControllerPortIsNotShared() throws Exception {
        for (String addr : List.of("127.0.0.1", "0.0.0.0")) {
            try (ServerSocket other = new ServerSocket()) {
                other.setReuseAddress(true);
                other.setOption(java.net.StandardSocketOptions.SO_REUSEPORT, true);
                assertThatThrownBy(() -> other.bind(new InetSocketAddress(addr, port)))
                        .as("a second socket bound the controller's port on " + addr)
                        .isInstanceOf(java.net.BindException.class);
            }
        }
    }

    @Test
    void aNewEndpointIsTakenOnceTheOldSessionIsDown() throws Exception {
        TestObi first = new TestObi(7102, "http://127.0.0.1:" + port);
        obis.add(first);
        assertThat(first.hello().statusCode()).isEqualTo(200); // no KeepAlive: it goes DOWN after 2 s
        await().atMost(WAIT)
                .until(() -> obi(7102).path("obi").path("state").asText().equals("DOWN"));
        TestObi second = new TestObi(7102, "http://127.0.0.1:" + port);
        obis.add(second);
        assertThat(second.hello().statusCode()).isEqualTo(200);
        assertThat(obi(7102).path("obi").path("endpoint").asText()).endsWith(":" + second.port());
    }

    @Test
    void keepAliveFromAnotherAddressDoesNotKeepTheSessionUp() throws Exception {
        TestObi o = new TestObi(7103, "http://127.0.0.1:" + port);
        obis.add(o);
        assertThat(o.hello().statusCode()).isEqualTo(200);
        String keepAlive = "{\"type\":\"KeepAlive\",\"xid\":2,\"dpid\":7103}";
        // forged KeepAlives every 200 ms: refused, and it still goes DOWN after the 2 s timeout
        long until = System.nanoTime() + WAIT.toNanos();
        while (!obi(7103).path("obi").path("state").asText().equals("DOWN")) {
            assertThat(System.nanoTime()).as("forged KeepAlives kept it up").isLessThan(until);
            assertError(rawPost("127.0.0.2", "/message/KeepAlive", keepAlive), "403", "FORBIDDEN", "NOT_PERMITTED");
            Thread.sleep(200);
        }
        // from the session's own address a KeepAlive counts (and brings it back)
        assertThat(o.keepAlive().statusCode()).isEqualTo(200);
        assertThat(obi(7103).path("obi").path("state").asText()).isEqualTo("UP");
    }

    @Test
    void alertsAndLogsComeOnlyFromASessionsOwnAddress() throws Exception {
        TestObi o = new TestObi(7105, "http://127.0.0.1:" + port);
        obis.add(o);
        assertThat(o.hello().statusCode()).isEqualTo(200);
        int before =
                given().get("/api/alerts?limit=10000").jsonPath().getList("$").size();
        String alert = "{\"type\":\"Alert\",\"xid\":3,\"origin_dpid\":%d,\"messages\":[{\"id\":1,"
                + "\"timestamp\":1700000000.25,\"message\":\"forged\",\"severity\":4,\"origin_block\":\"x\"}]}";
        String log = "{\"type\":\"Log\",\"xid\":4,\"origin_dpid\":7105,\"messages\":[{\"id\":1,"
                + "\"timestamp\":1700000000.25,\"message\":\"forged\",\"severity\":4,\"origin_block\":\"x\"}]}";
        // a live dpid from another address
        assertError(rawPost("127.0.0.2", "/message/Alert", alert.formatted(7105)), "403", "FORBIDDEN", "NOT_PERMITTED");
        assertError(rawPost("127.0.0.2", "/message/Log", log), "403", "FORBIDDEN", "NOT_PERMITTED");
        assertThat(given().get("/api/alerts?limit=10000").jsonPath().getList("$"))
                .hasSize(before);
        // the OBI's own alert is taken
        assertThat(o.alert("x", "genuine").statusCode()).isEqualTo(200);
    }

    @Test
    void anAlertSentAgainAfterALostAnswerIsTakenOnce() throws Exception {
        TestObi o = new TestObi(7106, "http://127.0.0.1:" + port);
        obis.add(o);
        assertThat(o.hello().statusCode()).isEqualTo(200);
        String alert = "{\"type\":\"Alert\",\"xid\":41,\"origin_dpid\":7106,\"messages\":[{\"id\":1,"
                + "\"timestamp\":1700000000.25,\"message\":\"retried\",\"severity\":4,\"origin_block\":\"x\"}]}";
        int before =
                given().get("/api/alerts?limit=10000").jsonPath().getList("$").size();
        for (int i = 0; i < 3; i++) { // the OBI's retries of one message: each answered as taken
            given().contentType("application/json")
                    .body(alert)
                    .when()
                    .post("/message/Alert")
                    .then()
                    .statusCode(200);
        }
        assertThat(given().get("/api/alerts?limit=10000").jsonPath().getList("$"))
                .hasSize(before + 1);
        // a new OBI process (Hello) starts its xids again: the same xid is a new alert
        assertThat(o.hello().statusCode()).isEqualTo(200);
        given().contentType("application/json")
                .body(alert)
                .when()
                .post("/message/Alert")
                .then()
                .statusCode(200);
        assertThat(given().get("/api/alerts?limit=10000").jsonPath().getList("$"))
                .hasSize(before + 2);
    }

    @Test
    void deepHeaderMatchIsAProtocolErrorNotA500() {
        String deep = "[".repeat(2000) + "80" + "]".repeat(2000);
        String body = "{\"type\":\"SetProcessingGraphResponse\",\"xid\":5,\"blocks\":[{\"type\":\"HeaderClassifier\","
                + "\"name\":\"hc\",\"config\":{\"match\":[{\"eth_type\":\"0x0800\",\"ip_proto\":6,\"tcp_dst\":\"" + deep
                + "\"}]}}],\"connectors\":[]}";
        String msg = given().contentType("application/json")
                .body(body)
                .when()
                .post("/message/SetProcessingGraphResponse")
                .then()
                .statusCode(400)
                .body("type", equalTo("Error"))
                .body("error_type", equalTo("BAD_REQUEST"))
                .body("error_subtype", equalTo("BAD_HEADER_MATCH"))
                .body("xid", equalTo(5))
                .extract()
                .path("message");
        assertThat(msg).contains("nested deeper than 32").hasSizeLessThan(500);
    }

    @Test
    void deeplyNestedJsonIsRefused() throws Exception {
        TestObi genuine = live(7104);
        StringBuilder deep = new StringBuilder();
        for (int i = 0; i < 100_000; i++) {
            deep.append("{\"a\":");
        }
        deep.append('1').append("}".repeat(100_000));
        String hello = "{\"type\":\"Hello\",\"xid\":1,\"dpid\":7104,\"version\":\"1.1.0\",\"capabilities\":{\"x\":"
                + deep + "}}";
        given().contentType("application/json")
                .body(hello)
                .when()
                .post("/message/Hello")
                .then()
                .statusCode(400)
                .body("error_subtype", equalTo("ILLEGAL_ARGUMENT"));
        String nested65 = "[".repeat(65) + "]".repeat(65);
        given().contentType("application/json")
                .body("{\"type\":\"KeepAlive\",\"xid\":1,\"dpid\":7104,\"x\":" + nested65 + "}")
                .when()
                .post("/message/KeepAlive")
                .then()
                .statusCode(400)
                .body("error_subtype", equalTo("ILLEGAL_ARGUMENT"));
        assertThat(obi(7104).path("obi").path("endpoint").asText()).endsWith(":" + genuine.port());
        assertThat(obi(7104).path("obi").path("state").asText()).isEqualTo("UP");
    }

    @Test
    void oversizedBodyIsRefusedBeforeItIsRead() throws Exception {
        // Content-Length of 100 MB, body never sent: the answer comes at once.
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            String head = "POST /message/KeepAlive HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100000000\r\n\r\n{";
            s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            assertError(parse(readResponse(s.getInputStream())), "413", "BAD_REQUEST", "ILLEGAL_ARGUMENT");
        }
        // Chunked, without a length: cut off once it passes the limit.
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /message/KeepAlive HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            + "Transfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = ("10000\r\n" + " ".repeat(0x10000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            try {
                for (int i = 0; i < 20; i++) { // 1.25 MiB
                    out.write(chunk);
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (IOException closedEarly) {
                // the controller may answer and close before the whole body is sent
            }
            assertError(parse(readResponse(s.getInputStream())), "413", "BAD_REQUEST", "ILLEGAL_ARGUMENT");
        }
    }

    @Test
    @Order(Integer.MAX_VALUE) // last: its sessions fill the cap for a while
    void sessionsOfObisThatNeverAnswerExpireAndAreCapped() throws Exception {
        TestObi genuine = live(7105);
        int unreachable = freePort(); // nothing listens there: the set-up never gets an answer
        int accepted = 0;
        int refused = 0;
        for (long dpid = 900_000; dpid < 900_060; dpid++) {
            var answer = given().contentType("application/json")
                    .body(hello(dpid, unreachable))
                    .when()
                    .post("/message/Hello");
            if (answer.statusCode() == 200) {
                accepted++;
            } else {
                answer.then().statusCode(400).body("error_subtype", equalTo("ILLEGAL_STATE"));
                refused++;
            }
        }
        // (a slow run may see early ones expire and their places taken: the cap holds throughout)
        assertThat(refused).as("accepted %d", accepted).isGreaterThan(0);
        assertThat(given().get("/api/obis").jsonPath().getList("$").size()).isLessThanOrEqualTo(40);
        // they expire after setup-timeout (8 s); the genuine OBI answered and stays
        await().atMost(WAIT).until(() -> given().get("/api/obis")
                .jsonPath()
                .getList("findAll { it.dpid >= 900000 }")
                .isEmpty());
        assertThat(obi(7105).path("obi").path("state").asText()).isEqualTo("UP");
        given().contentType("application/json")
                .body(hello(900_100, unreachable))
                .when()
                .post("/message/Hello")
                .then()
                .statusCode(200);
        // an OBI DOWN for longer than down-expiry (3 s) is dropped
        keepAlives.shutdownNow();
        await().atMost(WAIT).until(() -> given().get("/api/obis/7105").statusCode() == 404);
        assertThat(genuine.keepAlive().statusCode())
                .as("it has to say Hello again")
                .isEqualTo(400);
    }
}
