package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openbox.api.AppContext;
import org.openbox.api.GraphBuilder;
import org.openbox.api.Location;
import org.openbox.api.Statement;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderClassifier;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppLifecycle;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Reload of an application loaded like a ServiceLoader one (public no-argument
 * constructor): a new instance reads its settings again, is started, the old one stopped,
 * and the OBI gets the new graph; when the OBI refuses it, the old instance and graph stay.
 * An instance registered under another name than its own reloads under that name.
 */
class ReloadTest extends ControllerTestBase {

    static final long DPID = 190;
    static final String PORT = "openbox.test.reload.port";

    /** Drops TCP to the port in system property {@value #PORT}, read when its statements are built. */
    public static final class PortBlocker extends RecordingApp {
        volatile boolean stopped;
        private final int port = Integer.parseInt(System.getProperty(PORT, "1"));

        public PortBlocker() {}

        @Override
        public String name() {
            return "portblocker";
        }

        @Override
        public int priority() {
            return 5;
        }

        @Override
        public void start(AppContext ctx) {
            super.start(ctx);
        }

        @Override
        public void stop() {
            stopped = true;
        }

        @Override
        public List<Statement> statements() {
            HeaderClassifier cls =
                    new HeaderClassifier("cls").rule(Match.of().tcpDst(port)).rule(Match.of());
            return List.of(new Statement(
                    Location.obi(DPID),
                    new GraphBuilder()
                            .connect(new FromDevice("in", "eth0"), cls)
                            .connect(cls, 0, new Discard("drop"))
                            .connect(cls, 1, new ToDevice("out", "eth1"))
                            .build()));
        }
    }

    @Autowired
    AppLifecycle lifecycle;

    @Autowired
    AppCatalog catalog;

    @AfterEach
    void clear() {
        System.clearProperty(PORT);
        lifecycle.stop("portblocker");
        lifecycle.stop("portblocker-b");
    }

    /** The port as the merged graph spells it (decimal or hex). */
    private static boolean has(String text, int port) {
        return text.contains(":" + port)
                || text.contains("\"0x" + Integer.toHexString(port) + "\"")
                || text.contains("=" + port)
                || text.contains("0x" + Integer.toHexString(port));
    }

    private static String lastGraph(TestObi obi) {
        List<SetProcessingGraphRequest> graphs = obi.received(SetProcessingGraphRequest.class);
        return graphs.isEmpty() ? "" : graphs.get(graphs.size() - 1).toString();
    }

    @Test
    void aReloadIsANewInstanceWithTheNewSettingsAndARefusedOneChangesNothing() throws Exception {
        System.setProperty(PORT, "7001");
        if (catalog.get("portblocker").isEmpty()) {
            lifecycle.register(new PortBlocker(), "jar:test");
        }
        lifecycle.start("portblocker");
        PortBlocker first =
                (PortBlocker) catalog.get("portblocker").orElseThrow().app();
        TestObi obi = connected(DPID);
        await().atMost(WAIT).until(() -> has(lastGraph(obi), 7001));

        System.setProperty(PORT, "7002");
        given().post("/api/apps/portblocker/reload").then().statusCode(200);
        PortBlocker second =
                (PortBlocker) catalog.get("portblocker").orElseThrow().app();
        assertThat(second).isNotSameAs(first);
        assertThat(first.stopped).isTrue();
        assertThat(second.context).isNotNull(); // started
        assertThat(has(lastGraph(obi), 7002) && !has(lastGraph(obi), 7001))
                .as(lastGraph(obi))
                .isTrue();

        // the OBI refuses the next one: 422, the second instance and its graph stay
        obi.refuseWhen(m -> m instanceof SetProcessingGraphRequest r && has(r.toString(), 7003)
                ? Optional.of(new ErrorMessage(
                        r.xid(),
                        ErrorType.BAD_REQUEST,
                        ErrorSubtype.BAD_BLOCK,
                        "block 'portblocker.cls' (HeaderClassifier): refused",
                        null))
                : Optional.empty());
        System.setProperty(PORT, "7003");
        given().post("/api/apps/portblocker/reload")
                .then()
                .statusCode(422)
                .body("message", org.hamcrest.Matchers.containsString("refused"));
        assertThat(catalog.get("portblocker").orElseThrow().app()).isSameAs(second);
        assertThat(second.stopped).isFalse();
        assertThat(has(given().get("/api/obis/" + DPID + "/graph").asString(), 7002))
                .isTrue();
        given().get("/api/apps")
                .then()
                .body("find { it.name == 'portblocker' }.state", org.hamcrest.Matchers.equalTo("RUNNING"));

        given().post("/api/apps/nosuch/reload").then().statusCode(404);

        // another instance of the class under its own name runs beside it and reloads under that name
        System.setProperty(PORT, "7101");
        if (catalog.get("portblocker-b").isEmpty()) {
            lifecycle.register(new PortBlocker(), "jar:test", "portblocker-b");
        }
        assertThat(lifecycle.start("portblocker-b").ok()).isTrue();
        PortBlocker firstB =
                (PortBlocker) catalog.get("portblocker-b").orElseThrow().app();
        await().atMost(WAIT).until(() -> has(lastGraph(obi), 7101) && has(lastGraph(obi), 7002));
        System.setProperty(PORT, "7102");
        given().post("/api/apps/portblocker-b/reload").then().statusCode(200);
        PortBlocker secondB =
                (PortBlocker) catalog.get("portblocker-b").orElseThrow().app();
        assertThat(secondB).isNotSameAs(firstB);
        assertThat(firstB.stopped).isTrue();
        assertThat(secondB.context).isNotNull();
        assertThat(catalog.get("portblocker").orElseThrow().app()).isSameAs(second);
        await().atMost(WAIT)
                .until(() -> has(lastGraph(obi), 7102) && !has(lastGraph(obi), 7101) && has(lastGraph(obi), 7002));
        given().get("/api/apps")
                .then()
                .body("find { it.name == 'portblocker-b' }.state", org.hamcrest.Matchers.equalTo("RUNNING"));
    }
}
