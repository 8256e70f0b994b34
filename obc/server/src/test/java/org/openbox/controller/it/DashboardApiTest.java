package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.restassured.path.json.JsonPath;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openbox.controller.management.AlertStream;
import org.openbox.controller.testobi.TestObi;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * What the dashboard reads beyond the older API: an application's classifier rules with their
 * labels and hit counts (summed over OBIs, or on one), the alert filters, the live alert stream
 * (filtered, behind the login, closed when its client goes away, resumed with Last-Event-ID),
 * the topology, and the OpenAPI
 * description with its summaries and error responses.
 */
class DashboardApiTest extends ControllerTestBase {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Autowired
    AlertStream stream;

    /** Every classifier counter read answers 10, 20, 30, ... per merged rule. */
    private static JsonNode counts(String block, String handle) {
        var a = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < 64; i++) {
            a.add(10L * (i + 1));
        }
        return handle.equals("count") ? a : JsonNodeFactory.instance.numberNode(0);
    }

    @Test
    void rulesOfAnApplicationWithLabelsAndHits() throws Exception {
        TestObi a = connected(181);
        TestObi b = connected(182);
        a.onRead(DashboardApiTest::counts);
        b.onRead(DashboardApiTest::counts);
        awaitOnlyUp(Set.of(181L, 182L));

        JsonPath one = given().get("/api/apps/fw/rules?dpid=181")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertThat(one.getList("block")).containsExactly("cls");
        assertThat(one.getString("[0].type")).isEqualTo("HeaderClassifier");
        assertThat(one.getList("[0].rules.index")).containsExactly(0, 1);
        assertThat(one.getList("[0].rules.output")).containsExactly(0, 1);
        assertThat(one.getList("[0].rules.label")).containsExactly("tcp dst_port 22 -> ssh_alert", "any -> out");
        // the match as the application wrote it
        assertThat(one.getMap("[0].rules[0].match")).containsEntry("TCP_DST", 22);
        assertThat(one.getMap("[0].rules[1].match")).isEmpty();

        // hits are the application's own rule numbers: what its handle read on that OBI gives
        List<Long> own = new ArrayList<>();
        JSON.readTree(given().get("/api/apps/fw/blocks/cls/count").asString()).forEach(v -> own.add(v.asLong()));
        List<Long> onOne = one.getList("[0].rules.hits", Long.class);
        assertThat(onOne).allMatch(h -> h > 0);
        // over both OBIs (which answer alike): twice one, and what the application's own read gives
        JsonPath all = given().get("/api/apps/fw/rules")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        List<Long> onBoth = all.getList("[0].rules.hits", Long.class);
        assertThat(onBoth).containsExactlyElementsOf(own);
        assertThat(onBoth).containsExactly(onOne.get(0) * 2, onOne.get(1) * 2);

        // an application without classifiers, unknown names and OBIs
        given().get("/api/apps/ips/rules").then().statusCode(200).body("size()", equalTo(0));
        given().get("/api/apps/nope/rules").then().statusCode(404).body("message", containsString("nope"));
        given().get("/api/apps/fw/rules?dpid=999999").then().statusCode(404);
        given().get("/api/apps/fw/rules?dpid=x").then().statusCode(400);
        // viewers read it, anonymous clients do not
        given().auth()
                .preemptive()
                .basic(TestCredentials.VIEWER, TestCredentials.VIEWER_PASSWORD)
                .get("/api/apps/fw/rules")
                .then()
                .statusCode(200);
        given().auth().none().get("/api/apps/fw/rules").then().statusCode(401);
    }

    @Test
    void alertFilters() throws Exception {
        TestObi obi = connected(183);
        String ssh = mergedBlocksOnlyOf(183, "fw", "ssh_alert").get(0);
        String seen = mergedBlocksOnlyOf(183, "ips", "ips_alert").get(0);
        Instant before = Instant.now().minusSeconds(1);
        obi.alert(ssh, "ssh attempt one");
        obi.alert(seen, "seen by ips");
        obi.alert(ssh, "ssh attempt two");
        await().atMost(WAIT)
                .until(() -> given().get("/api/alerts?dpid=183")
                                .jsonPath()
                                .getList("")
                                .size()
                        == 3);

        assertThat(given().get("/api/alerts?dpid=183&app=fw").jsonPath().getList("message"))
                .containsExactly("ssh attempt one", "ssh attempt two");
        assertThat(given().get("/api/alerts?dpid=183&block=ips_alert")
                        .jsonPath()
                        .getList("app"))
                .containsExactly("ips");
        assertThat(given().get("/api/alerts?dpid=183&text=TWO").jsonPath().getList("message"))
                .containsExactly("ssh attempt two");
        assertThat(given().get("/api/alerts?dpid=183&minSeverity=3").jsonPath().getList(""))
                .hasSize(3);
        assertThat(given().get("/api/alerts?dpid=183&minSeverity=4").jsonPath().getList(""))
                .isEmpty();
        assertThat(given().get("/api/alerts?dpid=183&since=" + before)
                        .jsonPath()
                        .getList(""))
                .hasSize(3);
        assertThat(given().get("/api/alerts?dpid=183&until=" + before)
                        .jsonPath()
                        .getList(""))
                .isEmpty();
        assertThat(given().get("/api/alerts?dpid=183&app=fw&limit=1").jsonPath().getList("message"))
                .containsExactly("ssh attempt two");

        given().get("/api/alerts?since=yesterday").then().statusCode(400).body("message", containsString("since"));
        given().get("/api/alerts?minSeverity=9").then().statusCode(400).body("message", containsString("1..5"));
        given().get("/api/alerts?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z")
                .then()
                .statusCode(400);
    }

    @Test
    void liveAlertStreamIsFilteredAuthenticatedAndClosedWithItsClient() throws Exception {
        TestObi obi = connected(184);
        String ssh = mergedBlocksOnlyOf(184, "fw", "ssh_alert").get(0);
        String seen = mergedBlocksOnlyOf(184, "ips", "ips_alert").get(0);
        HttpClient http = HttpClient.newHttpClient();
        URI uri = URI.create(controllerUrl() + "/api/alerts/stream?app=fw&dpid=184");

        // no login: 401, nothing opened
        assertThat(http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode())
                .isEqualTo(401);
        int before = stream.clients();

        String basic = Base64.getEncoder()
                .encodeToString((TestCredentials.VIEWER + ":" + TestCredentials.VIEWER_PASSWORD)
                        .getBytes(StandardCharsets.UTF_8));
        HttpResponse<InputStream> r = http.send(
                HttpRequest.newBuilder(uri)
                        .header("Authorization", "Basic " + basic)
                        .header("Accept", "text/event-stream")
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        await().atMost(WAIT).until(() -> stream.clients() == before + 1);

        BufferedReader lines = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8));
        CompletableFuture<List<String>> data = CompletableFuture.supplyAsync(() -> {
            List<String> got = new ArrayList<>();
            try {
                for (String line; got.size() < 2 && (line = lines.readLine()) != null; ) {
                    if (line.startsWith("data:")) {
                        got.add(line.substring(5));
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return got;
        });
        obi.alert(seen, "not for this stream");
        obi.alert(ssh, "live one");
        obi.alert(ssh, "live two");
        List<String> got = data.get(20, TimeUnit.SECONDS);
        List<Map<String, Object>> alerts = new ArrayList<>();
        for (String d : got) {
            alerts.add(JSON.readValue(d, Map.class));
        }
        assertThat(alerts)
                .extracting(m -> m.get("app") + ":" + m.get("message"))
                .containsExactly("fw:live one", "fw:live two");

        // the client goes away: its stream is noticed at the next write and removed
        r.body().close();
        await().atMost(WAIT).until(() -> {
            obi.alert(ssh, "after close");
            return stream.clients() == before;
        });
        // a bad filter is refused before a stream is opened
        assertThat(http.send(
                                HttpRequest.newBuilder(URI.create(controllerUrl() + "/api/alerts/stream?minSeverity=0"))
                                        .header("Authorization", "Basic " + basic)
                                        .build(),
                                HttpResponse.BodyHandlers.discarding())
                        .statusCode())
                .isEqualTo(400);
        assertThat(stream.clients()).isEqualTo(before);
    }

    /** One Server-Sent Event: its id and its data. */
    private record Event(String id, String data) {}

    private static HttpResponse<InputStream> openStream(HttpClient http, URI uri, String lastEventId) throws Exception {
        String basic = Base64.getEncoder()
                .encodeToString((TestCredentials.VIEWER + ":" + TestCredentials.VIEWER_PASSWORD)
                        .getBytes(StandardCharsets.UTF_8));
        HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                .header("Authorization", "Basic " + basic)
                .header("Accept", "text/event-stream");
        if (lastEventId != null) {
            b.header("Last-Event-ID", lastEventId);
        }
        HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        return r;
    }

    /** The next {@code n} events of a stream (comments skipped), read in the background. */
    private static CompletableFuture<List<Event>> events(BufferedReader lines, int n) {
        return CompletableFuture.supplyAsync(() -> {
            List<Event> got = new ArrayList<>();
            String id = null;
            String data = null;
            try {
                for (String line; got.size() < n && (line = lines.readLine()) != null; ) {
                    if (line.startsWith("id:")) {
                        id = line.substring(3);
                    } else if (line.startsWith("data:")) {
                        data = line.substring(5);
                    } else if (line.isEmpty() && data != null) {
                        got.add(new Event(id, data));
                        id = null;
                        data = null;
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return got;
        });
    }

    /** Waits until the controller keeps {@code n} alerts of application fw from OBI {@code dpid}. */
    private static void awaitFwAlerts(long dpid, int n) {
        await().atMost(WAIT)
                .until(() -> given().get("/api/alerts?app=fw&dpid=" + dpid)
                                .jsonPath()
                                .getList("")
                                .size()
                        == n);
    }

    private static List<String> messages(List<Event> events) throws Exception {
        List<String> out = new ArrayList<>();
        for (Event e : events) {
            out.add(String.valueOf(JSON.readValue(e.data(), Map.class).get("message")));
        }
        return out;
    }

    @Test
    void aReconnectingStreamGetsWhatItMissedOnceThenTheLiveAlerts() throws Exception {
        TestObi obi = connected(186);
        String ssh = mergedBlocksOnlyOf(186, "fw", "ssh_alert").get(0);
        String seen = mergedBlocksOnlyOf(186, "ips", "ips_alert").get(0);
        HttpClient http = HttpClient.newHttpClient();
        URI uri = URI.create(controllerUrl() + "/api/alerts/stream?app=fw&dpid=186");

        // the stream is registered before its answer's head is sent, so no alert raised from here is missed
        HttpResponse<InputStream> first = openStream(http, uri, null);
        BufferedReader firstLines = new BufferedReader(new InputStreamReader(first.body(), StandardCharsets.UTF_8));
        CompletableFuture<List<Event>> two = events(firstLines, 2);
        obi.alert(ssh, "before one");
        obi.alert(ssh, "before two");
        List<Event> got = two.get(20, TimeUnit.SECONDS);
        assertThat(messages(got)).containsExactly("before one", "before two");
        // every event has an id, and they grow
        assertThat(got).allMatch(e -> e.id() != null && e.id().matches("[0-9a-z]+-[0-9]+"));
        long seq1 = Long.parseLong(got.get(0).id().replaceAll(".*-", ""));
        long seq2 = Long.parseLong(got.get(1).id().replaceAll(".*-", ""));
        assertThat(seq2).isGreaterThan(seq1);
        first.body().close();

        // missed while away: two of this filter, one of another application
        obi.alert(ssh, "missed one");
        obi.alert(seen, "missed, not for this filter");
        obi.alert(ssh, "missed two");
        awaitFwAlerts(186, 4);

        // resuming after "before one": what came after it, once each, in order, then the live ones
        HttpResponse<InputStream> again = openStream(http, uri, got.get(0).id());
        BufferedReader lines = new BufferedReader(new InputStreamReader(again.body(), StandardCharsets.UTF_8));
        List<Event> replayed = events(lines, 3).get(20, TimeUnit.SECONDS);
        assertThat(messages(replayed)).containsExactly("before two", "missed one", "missed two");
        assertThat(replayed.get(0).id()).isEqualTo(got.get(1).id());
        CompletableFuture<List<Event>> live = events(lines, 1);
        obi.alert(ssh, "live after resuming");
        assertThat(messages(live.get(20, TimeUnit.SECONDS))).containsExactly("live after resuming");
        again.body().close();

        // an id of an earlier controller run: what this run added (nothing was restored here)
        HttpResponse<InputStream> restarted = openStream(http, uri, "0-" + (seq2 + 1_000_000));
        List<Event> all = events(new BufferedReader(new InputStreamReader(restarted.body(), StandardCharsets.UTF_8)), 5)
                .get(20, TimeUnit.SECONDS);
        assertThat(messages(all))
                .containsExactly("before one", "before two", "missed one", "missed two", "live after resuming");
        restarted.body().close();

        // an id the stream never gives: no replay, only the live alerts
        HttpResponse<InputStream> bogus = openStream(http, uri, "not an id");
        BufferedReader bogusLines = new BufferedReader(new InputStreamReader(bogus.body(), StandardCharsets.UTF_8));
        CompletableFuture<List<Event>> onlyLive = events(bogusLines, 1);
        obi.alert(ssh, "only this one");
        assertThat(messages(onlyLive.get(20, TimeUnit.SECONDS))).containsExactly("only this one");
        bogus.body().close();
    }

    @Test
    void aStreamThatEndedBeforeAnyAlertResumesFromWhereItBegan() throws Exception {
        TestObi obi = connected(187);
        String ssh = mergedBlocksOnlyOf(187, "fw", "ssh_alert").get(0);
        HttpClient http = HttpClient.newHttpClient();
        URI uri = URI.create(controllerUrl() + "/api/alerts/stream?app=fw&dpid=187");
        obi.alert(ssh, "before the stream");
        awaitFwAlerts(187, 1);

        // a new stream's first bytes: the id it starts from, with no data
        HttpResponse<InputStream> first = openStream(http, uri, null);
        BufferedReader lines = new BufferedReader(new InputStreamReader(first.body(), StandardCharsets.UTF_8));
        CompletableFuture<List<String>> opening = CompletableFuture.supplyAsync(() -> {
            List<String> got = new ArrayList<>();
            try {
                for (String line; (line = lines.readLine()) != null && !line.isEmpty(); ) {
                    got.add(line);
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return got;
        });
        List<String> head = opening.get(20, TimeUnit.SECONDS);
        assertThat(head).noneMatch(l -> l.startsWith("data:"));
        String start = head.stream()
                .filter(l -> l.startsWith("id:"))
                .map(l -> l.substring(3))
                .findFirst()
                .orElse(null);
        assertThat(start).matches("[0-9a-z]+-[0-9]+");
        first.body().close();

        // raised while no stream was open: the client resumes from that id and gets it, once
        obi.alert(ssh, "while reconnecting");
        awaitFwAlerts(187, 2);
        HttpResponse<InputStream> again = openStream(http, uri, start);
        BufferedReader againLines = new BufferedReader(new InputStreamReader(again.body(), StandardCharsets.UTF_8));
        CompletableFuture<List<Event>> next = events(againLines, 2);
        obi.alert(ssh, "live");
        assertThat(messages(next.get(20, TimeUnit.SECONDS))).containsExactly("while reconnecting", "live");
        again.body().close();
    }

    @Test
    void countersOfEveryBlockInOneAnswer() throws Exception {
        TestObi obi = connected(185);
        obi.onRead((block, handle) -> handle.equals("count")
                ? JsonNodeFactory.instance.numberNode(block.length())
                : JsonNodeFactory.instance.numberNode(1.5));
        String source = given().get("/api/obis/185/graph")
                .jsonPath()
                .getString("graph.blocks.find { it.type == 'FromDevice' }.name");
        JsonPath c = given().get("/api/obis/185/counters")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertThat(c.getLong("dpid")).isEqualTo(185);
        assertThat(c.getBoolean("truncated")).isFalse();
        assertThat(c.getLong("blocks.'" + source + "'.count")).isEqualTo(source.length());
        assertThat(c.getDouble("blocks.'" + source + "'.rate")).isEqualTo(1.5);
        // an OBI refusing a read: that block says why, the others are answered
        obi.refuseWhen(m -> m instanceof org.openbox.protocol.message.ReadRequest r
                        && r.blockId().equals(source)
                ? java.util.Optional.of(new org.openbox.protocol.message.ErrorMessage(
                        m.xid(),
                        org.openbox.protocol.ErrorType.BAD_REQUEST,
                        org.openbox.protocol.ErrorSubtype.ILLEGAL_ARGUMENT,
                        "no such block",
                        null))
                : java.util.Optional.empty());
        JsonPath refused = given().get("/api/obis/185/counters")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertThat(refused.getString("blocks.'" + source + "'.error")).contains("no such block");
        assertThat(refused.getMap("blocks")).hasSizeGreaterThan(1);
        given().get("/api/obis/999998/counters").then().statusCode(404);
    }

    @Test
    void whoIsLoggedInAndWithWhichRoles() {
        given().get("/api/me")
                .then()
                .statusCode(200)
                .body("name", equalTo(TestCredentials.OPERATOR))
                .body("roles", org.hamcrest.Matchers.contains("OPERATOR", "VIEWER"));
        given().auth()
                .preemptive()
                .basic(TestCredentials.VIEWER, TestCredentials.VIEWER_PASSWORD)
                .get("/api/me")
                .then()
                .statusCode(200)
                .body("roles", org.hamcrest.Matchers.contains("VIEWER"));
        given().auth()
                .none()
                .header("Authorization", "Bearer " + TestCredentials.VIEWER_TOKEN)
                .get("/api/me")
                .then()
                .statusCode(200)
                .body("name", equalTo("token:test-viewer"));
        given().auth().none().get("/api/me").then().statusCode(401);
    }

    @Test
    void topologyIsListed() {
        given().get("/api/topology").then().statusCode(200).body("segments", org.hamcrest.Matchers.notNullValue());
    }

    @Test
    void openApiDescribesEveryManagementEndpointAndItsErrors() throws Exception {
        JsonNode doc = JSON.readTree(
                given().get("/v3/api-docs").then().statusCode(200).extract().asString());
        assertThat(doc.at("/info/title").asText()).isEqualTo("OpenBox controller API");
        // the project's version, from the build-info the build writes
        assertThat(doc.at("/info/version").asText()).matches("\\d+\\.\\d+.*");
        assertThat(doc.at("/info/description").asText()).contains("VIEWER").contains("OPERATOR");
        assertThat(doc.at("/components/securitySchemes/basic/scheme").asText()).isEqualTo("basic");
        assertThat(doc.at("/components/securitySchemes/bearer/scheme").asText()).isEqualTo("bearer");
        JsonNode paths = doc.get("paths");
        List<String> checked = new ArrayList<>();
        paths.fields().forEachRemaining(p -> {
            if (!p.getKey().startsWith("/api/")) {
                return;
            }
            p.getValue().fields().forEachRemaining(op -> {
                String what = op.getKey().toUpperCase() + " " + p.getKey();
                JsonNode o = op.getValue();
                assertThat(o.path("summary").asText()).as(what + " summary").isNotBlank();
                for (String code : List.of("401", "403")) {
                    assertThat(o.at("/responses/" + code + "/content/application~1json/schema/$ref")
                                    .asText())
                            .as(what + " " + code)
                            .endsWith("/ApiError");
                }
                checked.add(what);
            });
        });
        assertThat(checked)
                .contains(
                        "GET /api/apps/{name}/rules",
                        "GET /api/alerts/stream",
                        "GET /api/obis/{dpid}/graph",
                        "POST /api/apps/{name}/stop",
                        "GET /api/topology");
        assertThat(paths.at("/~1api~1obis~1{dpid}/get/responses/404/content/application~1json/schema/$ref")
                        .asText())
                .endsWith("/StatusError");
        assertThat(paths.at("/~1api~1apps~1{name}~1rules/get/responses/404").isMissingNode())
                .isFalse();
        assertThat(paths.at("/~1api~1alerts/get/responses/400/content/application~1json/schema/$ref")
                        .asText())
                .endsWith("/StatusError");
        assertThat(paths.at("/~1api~1obis~1{dpid}~1stats/get/responses/502").isMissingNode())
                .isFalse();
        assertThat(paths.at("/~1api~1obis~1{dpid}~1stats/get/responses/504").isMissingNode())
                .isFalse();
        assertThat(paths.at("/~1api~1obis~1{dpid}~1counters/get/responses/404").isMissingNode())
                .isFalse();
        assertThat(paths.at("/~1api~1obis/get/responses/200").isMissingNode()).isFalse();
        assertThat(doc.at("/components/schemas/ApiError/properties/error_subtype")
                        .isMissingNode())
                .isFalse();
        assertThat(doc.at("/components/schemas/StatusError/properties/message").isMissingNode())
                .isFalse();

        // Swagger UI is served, behind the same login
        given().get("/swagger-ui/index.html").then().statusCode(200).body(containsString("swagger"));
        given().auth().none().get("/swagger-ui/index.html").then().statusCode(401);
        given().auth().none().get("/v3/api-docs").then().statusCode(401);
    }
}
