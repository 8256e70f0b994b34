package org.openbox.controller.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigInteger;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.message.ReadRequest;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.openbox.protocol.message.WriteRequest;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * An application reads and writes its own blocks through the controller: the request goes
 * to the merged blocks on every OBI that implements the block and the answers are combined.
 */
class HandleRoutingTest extends ControllerTestBase {

    private static final JsonNodeFactory J = JsonNodeFactory.instance;

    @Autowired
    GraphAggregator aggregator;

    private static JsonNode counts(int... values) {
        var a = J.arrayNode();
        for (int v : values) {
            a.add(v);
        }
        return a;
    }

    @Test
    void readIsSummedOverEveryObiImplementingTheBlock() throws Exception {
        TestObi a = connected(41);
        TestObi b = connected(42);
        a.onRead((block, handle) -> handle.equals("count") && block.contains("cls") ? counts(3, 4) : J.numberNode(5));
        b.onRead((block, handle) -> handle.equals("count") && block.contains("cls") ? counts(10, 20) : J.numberNode(7));
        awaitOnlyUp(Set.of(41L, 42L));

        JsonNode perRule = fw.context.handles().read("cls", "count").get(5, TimeUnit.SECONDS);
        assertThat(perRule).isEqualTo(counts(13, 24));
        JsonNode dropped = fw.context.handles().read("drop", "count").get(5, TimeUnit.SECONDS);
        assertThat(dropped.asLong()).isEqualTo(12);
        // the same application view through the management API
        io.restassured.RestAssured.given()
                .get("/api/apps/fw/blocks/cls/count")
                .then()
                .statusCode(200)
                .body("", org.hamcrest.Matchers.equalTo(List.of(13, 24)));
        io.restassured.RestAssured.given()
                .get("/api/apps/fw/blocks/ips_alert/count")
                .then()
                .statusCode(404);

        // every OBI got ReadRequests naming merged blocks only
        List<String> readBlocks =
                a.received(ReadRequest.class).stream().map(ReadRequest::blockId).toList();
        assertThat(readBlocks).isNotEmpty().allSatisfy(name -> assertThat(name).isNotBlank());
        assertThat(b.received(ReadRequest.class)).hasSameSizeAs(a.received(ReadRequest.class));
    }

    /** A read at one OBI answers that OBI's count only; the combined read still sums both. */
    @Test
    void readAtOneObiAnswersThatObisCountOnly() throws Exception {
        TestObi a = connected(48);
        TestObi b = connected(49);
        a.onRead((block, handle) -> handle.equals("count") && block.contains("cls") ? counts(3, 4) : J.numberNode(5));
        b.onRead((block, handle) -> handle.equals("count") && block.contains("cls") ? counts(10, 20) : J.numberNode(7));
        awaitOnlyUp(Set.of(48L, 49L));

        assertThat(fw.context.handles().read("cls", "count", 48).get(5, TimeUnit.SECONDS))
                .isEqualTo(counts(3, 4));
        assertThat(fw.context.handles().read("cls", "count", 49).get(5, TimeUnit.SECONDS))
                .isEqualTo(counts(10, 20));
        assertThat(fw.context
                        .handles()
                        .read("cls", "count_1", 49)
                        .get(5, TimeUnit.SECONDS)
                        .asLong())
                .isEqualTo(20);
        assertThat(fw.context.handles().read("cls", "count").get(5, TimeUnit.SECONDS))
                .isEqualTo(counts(13, 24));
        int readsOfB = b.received(ReadRequest.class).size();
        fw.context.handles().read("cls", "count", 48).get(5, TimeUnit.SECONDS);
        assertThat(b.received(ReadRequest.class))
                .as("a read at OBI 48 sends nothing to OBI 49")
                .hasSize(readsOfB);
        // an OBI that is not up (or unknown) runs nothing
        assertThatThrownBy(() -> fw.context.handles().read("cls", "count", 4949).get(5, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OBI 4949");

        // the management API: ?dpid=N
        io.restassured.RestAssured.given()
                .get("/api/apps/fw/blocks/cls/count?dpid=48")
                .then()
                .statusCode(200)
                .body("", org.hamcrest.Matchers.equalTo(List.of(3, 4)));
        io.restassured.RestAssured.given()
                .get("/api/apps/fw/blocks/cls/count?dpid=49")
                .then()
                .statusCode(200)
                .body("", org.hamcrest.Matchers.equalTo(List.of(10, 20)));
        io.restassured.RestAssured.given()
                .get("/api/apps/fw/blocks/cls/count")
                .then()
                .statusCode(200)
                .body("", org.hamcrest.Matchers.equalTo(List.of(13, 24)));
        io.restassured.RestAssured.given()
                .get("/api/apps/fw/blocks/cls/count?dpid=4949")
                .then()
                .statusCode(404)
                .body("message", org.hamcrest.Matchers.containsString("no OBI with dpid 4949"));
        io.restassured.RestAssured.given()
                .get("/api/apps/fw/blocks/cls/count?dpid=x")
                .then()
                .statusCode(400)
                .body("message", org.hamcrest.Matchers.equalTo("parameter 'dpid' is not a valid long: x"));
    }

    @Test
    void writeReachesEveryObiAndCompletesWhenAllAnswered() throws Exception {
        TestObi a = connected(43);
        TestObi b = connected(44);
        awaitOnlyUp(Set.of(43L, 44L));
        fw.context.handles().write("cls", "reset_counts", J.nullNode()).get(5, TimeUnit.SECONDS);
        assertThat(a.received(WriteRequest.class))
                .extracting(WriteRequest::writeHandle)
                .containsOnly("reset_counts");
        assertThat(b.received(WriteRequest.class)).isNotEmpty();
    }

    /**
     * On OBI 71 fw's and lb's classifiers may be combined into one merged classifier. The
     * OBI answers rule i of every merged classifier with 10^i, so each application's answer
     * shows exactly which merged rules were summed into each of its own rules.
     */
    @Test
    void perRuleCountsAreMappedBackToEachApplicationsOwnRules() throws Exception {
        TestObi obi = connected(TestApps.LoadBalancer.DPID);
        SetProcessingGraphRequest graph =
                obi.received(SetProcessingGraphRequest.class).get(0);
        obi.onRead((block, handle) -> {
            Block b = graph.blocks().stream()
                    .filter(x -> x.name().equals(block))
                    .findFirst()
                    .orElseThrow();
            if (b.config() == null || !b.config().has("match")) {
                return J.numberNode(999); // e.g. the Discard that implements a classifier's "no match"
            }
            var a = J.arrayNode();
            for (int i = 0; i < b.config().get("match").size(); i++) {
                a.add(BigInteger.TEN.pow(i));
            }
            return a;
        });
        awaitOnlyUp(Set.of(TestApps.LoadBalancer.DPID));
        DeployedGraph deployed = aggregator.current(TestApps.LoadBalancer.DPID);
        assertThat(deployed.apps()).containsExactly("fw", "ips", "lb");

        for (RecordingApp app : List.of(fw, lb)) {
            JsonNode got = app.context.handles().read("cls", "count").get(5, TimeUnit.SECONDS);
            assertThat(got.size()).as(app.name() + " sees its own two rules").isEqualTo(2);
            for (int rule = 0; rule < 2; rule++) {
                BigInteger expected = BigInteger.ZERO;
                for (String merged : deployed.origins().mergedBlocksOf(app.name(), "cls")) {
                    for (int m : deployed.origins().mergedRulesOf(app.name(), "cls", rule, merged)) {
                        expected = expected.add(BigInteger.TEN.pow(m));
                    }
                }
                assertThat(got.get(rule).bigIntegerValue())
                        .as(app.name() + " rule " + rule)
                        .isEqualTo(expected);
                // the indexed spelling count_<rule> is the same rule's value
                JsonNode one =
                        app.context.handles().read("cls", "count_" + rule).get(5, TimeUnit.SECONDS);
                assertThat(one.bigIntegerValue())
                        .as(app.name() + " count_" + rule)
                        .isEqualTo(expected);
                assertThat(expected)
                        .as(app.name() + " rule " + rule + " is implemented")
                        .isPositive();
            }
            // the application's rules split the merged rules between them: no merged rule counted twice
            BigInteger r0 = got.get(0).bigIntegerValue();
            BigInteger r1 = got.get(1).bigIntegerValue();
            assertThat(r0.toString().chars().filter(c -> c == '1').count()
                            + r1.toString().chars().filter(c -> c == '1').count())
                    .isEqualTo(
                            r0.add(r1).toString().chars().filter(c -> c == '1').count());
        }
    }

    @Test
    void anApplicationCannotReachAnotherApplicationsBlock() throws Exception {
        connected(45);
        awaitOnlyUp(Set.of(45L));
        assertThatThrownBy(() -> fw.context.handles().read("ips_alert", "count").get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no block 'ips_alert'");
    }

    /**
     * On OBI 71 fw's and lb's classifiers are one merged classifier: resetting it for one
     * application would reset the other's counts, so the write is refused, naming the other
     * owner, and nothing is sent, not even to OBI 46 where fw's classifier is its own.
     */
    @Test
    void writeToABlockMergedWithAnotherApplicationsBlockIsRefused() throws Exception {
        TestObi shared = connected(TestApps.LoadBalancer.DPID);
        TestObi alone = connected(46);
        awaitOnlyUp(Set.of(TestApps.LoadBalancer.DPID, 46L));
        DeployedGraph d = aggregator.current(TestApps.LoadBalancer.DPID);
        assertThat(d.origins().mergedBlocksOf("fw", "cls"))
                .as("fw.cls and lb.cls are combined")
                .containsAnyElementsOf(d.origins().mergedBlocksOf("lb", "cls"));

        assertThatThrownBy(() -> fw.context
                        .handles()
                        .write("cls", "reset_counts", J.nullNode())
                        .get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("application(s) [lb]")
                .hasMessageContaining("OBI 71")
                .satisfies(e -> assertThat(((ProtocolException) e).subtype()).isEqualTo(ErrorSubtype.NOT_PERMITTED));
        assertThatThrownBy(() -> lb.context
                        .handles()
                        .write("cls", "reset_counts", J.nullNode())
                        .get(5, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("application(s) [fw]");
        Thread.sleep(200); // a wrongly sent write would have arrived by now
        assertThat(shared.received(WriteRequest.class)).isEmpty();
        assertThat(alone.received(WriteRequest.class)).isEmpty();
    }

    @Test
    void handleTheBlockDoesNotHaveIsRefusedWithItsName() throws Exception {
        connected(47);
        awaitOnlyUp(Set.of(47L));
        assertThatThrownBy(() -> fw.context.handles().read("cls", "cont").get(5, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("block 'cls' (HeaderClassifier) has no read handle 'cont'");
        assertThatThrownBy(() -> fw.context.handles().read("cls", "count_2").get(5, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("has 2 rule(s)");
        io.restassured.RestAssured.given()
                .get("/api/apps/fw/blocks/cls/cont")
                .then()
                .statusCode(400)
                .body("error_subtype", org.hamcrest.Matchers.equalTo("ILLEGAL_ARGUMENT"));
    }
}
