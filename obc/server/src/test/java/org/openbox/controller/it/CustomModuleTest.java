package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.openbox.api.CustomModule;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;
import org.openbox.protocol.ModuleSigning;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.message.AddCustomModuleRequest;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.Message;
import org.openbox.protocol.message.RemoveCustomModuleRequest;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * An application's custom module is installed on its OBIs before the graph that uses it,
 * a refusal only keeps that application off that OBI, it is removed when no running
 * application needs it and sent again when the OBI starts over.
 */
class CustomModuleTest extends ControllerTestBase {

    @Autowired
    TestApps.ModuleUser modapp;

    private static boolean usesSampleCounter(SetProcessingGraphRequest g) {
        return g.blocks().stream().map(Block::type).anyMatch("TestCounter"::equals);
    }

    private static int indexOf(List<Message> all, Message m) {
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i) == m) {
                return i;
            }
        }
        throw new AssertionError("not received: " + m);
    }

    @Test
    void moduleGoesBeforeTheGraphAndIsRemovedWhenNoLongerNeeded() throws Exception {
        TestObi obi = connected(TestApps.ModuleUser.DPID);
        AddCustomModuleRequest add =
                obi.await(AddCustomModuleRequest.class, 1, WAIT).get(0);
        assertThat(add.moduleName()).isEqualTo(TestApps.ModuleUser.MODULE);
        assertThat(Base64.getDecoder().decode(add.moduleContent())).isEqualTo(TestApps.ModuleUser.CONTENT);
        assertThat(add.contentTransferEncoding()).isEqualTo("base64");
        assertThat(add.translation().get("blocks").get(0).get("name").asText()).isEqualTo("TestCounter");
        // signed with the configured key: the signature verifies for this name, version and content
        assertThat(add.moduleVersion()).isEqualTo(CustomModule.DEFAULT_VERSION);
        PublicKey trusted = ModuleSigning.publicKeyFromPem(Files.readString(Path.of(TEST_TRUST)));
        assertThat(add.keyId()).isEqualTo(ModuleSigning.keyId(trusted));
        Signature verify = Signature.getInstance(ModuleSigning.ALGORITHM);
        verify.initVerify(trusted);
        verify.update(ModuleSigning.signingInput(add.moduleName(), add.moduleVersion(), TestApps.ModuleUser.CONTENT));
        assertThat(verify.verify(Base64.getDecoder().decode(add.signature()))).isTrue();
        SetProcessingGraphRequest graph =
                obi.received(SetProcessingGraphRequest.class).get(0);
        assertThat(usesSampleCounter(graph)).isTrue();
        assertThat(indexOf(obi.received(), add)).isLessThan(indexOf(obi.received(), graph));
        given().get("/api/obis/" + TestApps.ModuleUser.DPID)
                .then()
                .body("obi.modules", org.hamcrest.Matchers.contains(TestApps.ModuleUser.MODULE));

        try {
            given().post("/api/apps/modapp/stop").then().statusCode(200);
            RemoveCustomModuleRequest remove =
                    obi.await(RemoveCustomModuleRequest.class, 1, WAIT).get(0);
            assertThat(remove.moduleName()).isEqualTo(TestApps.ModuleUser.MODULE);
            SetProcessingGraphRequest without =
                    obi.received(SetProcessingGraphRequest.class).get(1);
            assertThat(usesSampleCounter(without)).isFalse();
            // the graph that no longer uses the module went first
            assertThat(indexOf(obi.received(), without)).isLessThan(indexOf(obi.received(), remove));
        } finally {
            given().post("/api/apps/modapp/start").then().statusCode(200);
        }
        // running again: installed again, then the graph with the block
        obi.await(AddCustomModuleRequest.class, 2, WAIT);
        obi.await(SetProcessingGraphRequest.class, 3, WAIT);
        assertThat(usesSampleCounter(
                        obi.received(SetProcessingGraphRequest.class).get(2)))
                .isTrue();

        // the OBI starts over (Hello): it has lost its modules, so they are sent again
        obi.hello();
        obi.await(AddCustomModuleRequest.class, 3, WAIT);
        obi.await(SetProcessingGraphRequest.class, 4, WAIT);
        List<Message> all = obi.received();
        assertThat(indexOf(all, obi.received(AddCustomModuleRequest.class).get(2)))
                .isLessThan(indexOf(
                        all, obi.received(SetProcessingGraphRequest.class).get(3)));
    }

    @Test
    void refusedModuleKeepsOnlyItsApplicationOffThatObi() throws Exception {
        TestObi obi = obi(TestApps.ModuleUser.REFUSING_DPID);
        obi.refuseWhen(m -> m instanceof AddCustomModuleRequest r
                ? Optional.of(new ErrorMessage(
                        r.xid(),
                        ErrorType.INTERNAL_ERROR,
                        ErrorSubtype.ADD_MODULE_FAILED,
                        "cannot load the shared object",
                        null))
                : Optional.empty());
        obi.hello();
        keepAlive(obi);
        obi.await(AddCustomModuleRequest.class, 1, WAIT);
        obi.await(SetProcessingGraphRequest.class, 1, WAIT);

        await().atMost(WAIT)
                .until(() -> modapp.errors.stream().anyMatch(e -> e.dpid() == TestApps.ModuleUser.REFUSING_DPID));
        var error = modapp.errors.stream()
                .filter(e -> e.dpid() == TestApps.ModuleUser.REFUSING_DPID)
                .findFirst()
                .orElseThrow();
        assertThat(error.subtype()).isEqualTo(ErrorSubtype.ADD_MODULE_FAILED);
        assertThat(error.message()).contains(TestApps.ModuleUser.MODULE).contains("cannot load the shared object");

        // the other applications run there; modapp does not, and nobody else got the error
        SetProcessingGraphRequest graph =
                obi.received(SetProcessingGraphRequest.class).get(0);
        assertThat(usesSampleCounter(graph)).isFalse();
        assertThat(graph.blocks()).extracting(Block::type).contains("HeaderClassifier", "Alert");
        java.util.Map<String, List<java.util.Map<String, String>>> provenance = given().get(
                        "/api/obis/" + TestApps.ModuleUser.REFUSING_DPID + "/graph")
                .jsonPath()
                .getMap("provenance");
        assertThat(provenance.values().stream()
                        .flatMap(List::stream)
                        .map(o -> o.get("app"))
                        .distinct()
                        .sorted())
                .containsExactly("fw", "ips");
        assertThat(fw.errors.stream().filter(e -> e.dpid() == TestApps.ModuleUser.REFUSING_DPID))
                .isEmpty();
        assertThat(obi.received(AddCustomModuleRequest.class)).hasSize(1); // not retried on its own
        given().get("/api/obis/" + TestApps.ModuleUser.REFUSING_DPID)
                .then()
                .body("obi.excludedApps", org.hamcrest.Matchers.contains("modapp"))
                .body(
                        "obi.refusedModules." + TestApps.ModuleUser.MODULE,
                        org.hamcrest.Matchers.containsString("cannot load the shared object"));
    }
}
