package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openbox.api.GraphBuilder;
import org.openbox.api.Location;
import org.openbox.api.Statement;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderClassifier;
import org.openbox.api.blocks.RegexClassifier;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;
import org.openbox.controller.apps.AppLifecycle;
import org.openbox.controller.apps.AppState;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Per-application limits (openbox.limits.apps.NAME.*, set in ControllerTestBase): an
 * application over one is refused with a message naming the property, the others keep
 * running with their graphs; a reload over a limit leaves the running graph alone.
 */
class AppLimitsTest extends ControllerTestBase {

    @Autowired
    AppLifecycle lifecycle;

    /** in -> acl (rules + a default rule) -> re (patterns) -> out; 5 blocks. */
    static final class SizedApp extends RecordingApp {
        private final String name;
        private final long dpid;
        volatile int rules;
        volatile int patterns;
        volatile int patternLength;

        SizedApp(String name, long dpid, int rules, int patterns, int patternLength) {
            this.name = name;
            this.dpid = dpid;
            this.rules = rules;
            this.patterns = patterns;
            this.patternLength = patternLength;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int priority() {
            return 50;
        }

        @Override
        public List<Statement> statements() {
            HeaderClassifier acl = new HeaderClassifier("acl");
            for (int i = 0; i < rules; i++) {
                acl.rule(Match.of().udpDst(4000 + i));
            }
            acl.rule(Match.of());
            RegexClassifier re = new RegexClassifier("re");
            for (int i = 0; i < patterns; i++) {
                re.pattern(("p" + i + "x".repeat(patternLength)).substring(0, patternLength));
            }
            Discard drop = new Discard("drop");
            ToDevice out = new ToDevice("out", "eth1");
            GraphBuilder b = new GraphBuilder().connect(new FromDevice("in", "eth0"), acl);
            for (int i = 0; i < rules; i++) {
                b.connect(acl, i, drop);
            }
            b.connect(acl, rules, re);
            for (int i = 0; i < patterns; i++) {
                b.connect(re, i, out);
            }
            return List.of(new Statement(Location.obi(dpid), b.build()));
        }
    }

    private Map<String, Object> app(String name) {
        return given().get("/api/apps").jsonPath().getMap("find { it.name == '" + name + "' }");
    }

    @Test
    void anApplicationOverALimitIsRefusedNamingTheLimitAndTheOthersRun() throws Exception {
        long dpid = 196;
        connected(dpid);
        await().atMost(WAIT).until(() -> given().get("/api/obis/" + dpid)
                .jsonPath()
                .getList("obi.apps")
                .contains("fw"));
        Object graphBefore =
                given().get("/api/obis/" + dpid + "/graph").jsonPath().get("graph");

        Map<String, String> refusals = Map.of(
                "lim-rules",
                        "app lim-rules: 9 rules in classifier 'acl' exceed"
                                + " openbox.limits.apps.lim-rules.max-rules-per-classifier=5",
                "lim-patterns",
                        "app lim-patterns: 6 payload patterns exceed openbox.limits.apps.lim-patterns.max-patterns=4",
                "lim-bytes",
                        "app lim-bytes: 90 bytes of payload patterns exceed"
                                + " openbox.limits.apps.lim-bytes.max-pattern-bytes=64",
                "lim-blocks",
                        "app lim-blocks: 5 blocks in one graph exceed"
                                + " openbox.limits.apps.lim-blocks.max-blocks-per-graph=4");
        List<SizedApp> apps = List.of(
                new SizedApp("lim-rules", dpid, 8, 1, 4),
                new SizedApp("lim-patterns", dpid, 1, 6, 4),
                new SizedApp("lim-bytes", dpid, 1, 3, 30),
                new SizedApp("lim-blocks", dpid, 1, 1, 4));
        for (SizedApp a : apps) {
            var entry = lifecycle.register(a, "test:AppLimitsTest");
            assertThat(entry.state()).as(a.name()).isEqualTo(AppState.REFUSED);
            assertThat(entry.error()).isEqualTo(refusals.get(a.name()));
            assertThat(app(a.name())).containsEntry("state", "REFUSED").containsEntry("error", refusals.get(a.name()));
            assertThat(lifecycle.start(a.name()).ok()).isFalse();
        }
        assertThat(app("fw")).containsEntry("state", "RUNNING");
        assertThat(given().get("/api/obis/" + dpid).jsonPath().getList("obi.apps"))
                .contains("fw")
                .doesNotContainAnyElementsOf(refusals.keySet());
        assertThat((Object)
                        given().get("/api/obis/" + dpid + "/graph").jsonPath().get("graph"))
                .isEqualTo(graphBefore);
    }

    @Test
    void aReloadOverALimitIsRefusedAndTheRunningGraphStays() throws Exception {
        long dpid = 197;
        SizedApp app = new SizedApp("lim-reload", dpid, 1, 2, 4);
        assertThat(lifecycle.register(app, "test:AppLimitsTest").state()).isEqualTo(AppState.STOPPED);
        try {
            assertThat(lifecycle.start("lim-reload").ok()).isTrue();
            TestObi obi = connected(dpid);
            await().atMost(WAIT).until(() -> given().get("/api/obis/" + dpid)
                    .jsonPath()
                    .getList("obi.apps")
                    .contains("lim-reload"));
            Object graphBefore =
                    given().get("/api/obis/" + dpid + "/graph").jsonPath().get("graph");
            int pushes = obi.received(SetProcessingGraphRequest.class).size();

            app.patterns = 5;
            given().post("/api/apps/lim-reload/reload")
                    .then()
                    .statusCode(400)
                    .body(
                            "message",
                            org.hamcrest.Matchers.containsString(
                                    "app lim-reload: 5 payload patterns exceed openbox.limits.apps.lim-reload.max-patterns=3"));
            assertThat(app("lim-reload")).containsEntry("state", "RUNNING");
            assertThat((Object) given().get("/api/obis/" + dpid + "/graph")
                            .jsonPath()
                            .get("graph"))
                    .isEqualTo(graphBefore);
            assertThat(obi.received(SetProcessingGraphRequest.class)).hasSize(pushes);

            app.patterns = 3; // at the limit: accepted and pushed
            given().post("/api/apps/lim-reload/reload").then().statusCode(200);
            await().atMost(WAIT)
                    .until(() -> new ArrayList<>(given().get("/api/obis/" + dpid + "/graph")
                                                    .jsonPath()
                                                    .getList("graph.blocks.type"))
                                            .size()
                                    > 0
                            && !given().get("/api/obis/" + dpid + "/graph")
                                    .jsonPath()
                                    .get("graph")
                                    .equals(graphBefore));
        } finally {
            lifecycle.stop("lim-reload");
        }
    }
}
