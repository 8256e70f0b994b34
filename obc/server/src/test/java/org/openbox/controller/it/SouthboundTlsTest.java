package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.restassured.config.RestAssuredConfig;
import io.restassured.config.SSLConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openbox.controller.ControllerApplication;
import org.openbox.controller.obi.ObiQueries;
import org.openbox.controller.obi.ObiRegistry;
import org.openbox.controller.obi.ObiSession;
import org.openbox.controller.obi.ObiState;
import org.openbox.controller.testobi.TestObi;
import org.openbox.controller.testobi.TestPki;
import org.openbox.protocol.message.BarrierRequest;
import org.openbox.protocol.message.GlobalStatsRequest;
import org.openbox.protocol.message.GlobalStatsResponse;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;

/**
 * Mutual TLS on the southbound channel, over real HTTPS with certificates made by
 * {@code openssl} for this run: an OBI with its certificate gets its graph over HTTPS from a
 * controller presenting its own; requests without a certificate, with another CA's or an
 * expired one, and messages for a dpid other than the certificate's are refused without
 * touching the OBI they name; an OBI whose server certificate is another dpid's is sent
 * nothing and reported.
 */
@SpringBootTest(
        classes = ControllerApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "openbox.keepalive-interval=1s",
            "openbox.keepalive-timeout=2s",
            "openbox.deadline-check-interval=50ms",
            "openbox.request-timeout=3s",
            "openbox.state-dir=target/test-state/${random.uuid}",
            "openbox.modules.signing-key=" + ControllerTestBase.TEST_SIGNING_KEY, // TestApps' module user
            // TestApps holds a deliberately broken application, refused while the others run
            "openbox.allow-failed-apps=true"
        })
@Import(TestApps.class)
@ExtendWith(OutputCaptureExtension.class)
class SouthboundTlsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Path DIR;
    private static final TestPki PKI;

    static {
        try {
            DIR = Files.createTempDirectory("openbox-tls-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        PKI = TestPki.create(DIR);
    }

    @DynamicPropertySource
    static void certificates(DynamicPropertyRegistry registry) {
        for (String p : PKI.controllerBundle()) {
            int eq = p.indexOf('=');
            registry.add(p.substring(0, eq), () -> p.substring(eq + 1));
        }
    }

    @AfterAll
    static void removeCertificates() throws IOException {
        FileSystemUtils.deleteRecursively(DIR);
    }

    @LocalServerPort
    int port;

    @Autowired
    ObiRegistry manager;

    @Autowired
    ObiQueries queries;

    @Autowired
    MeterRegistry registry;

    private final List<TestObi> obis = new ArrayList<>();
    private final ScheduledExecutorService keepAlives = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void closeObis() {
        keepAlives.shutdownNow();
        obis.forEach(TestObi::close);
    }

    private String url() {
        return "https://127.0.0.1:" + port;
    }

    /** A TLS test OBI: {@code client} is its certificate towards the controller, {@code server} its server's. */
    private TestObi obi(long dpid, TestPki.Identity client, TestPki.Identity server) throws IOException {
        TestObi o = new TestObi(dpid, url(), PKI.context(client), PKI.context(server));
        obis.add(o);
        return o;
    }

    private TestObi connected(long dpid) throws Exception {
        TestObi o = obi(dpid, PKI.obi(dpid), PKI.obi(dpid));
        assertThat(o.hello().statusCode()).isEqualTo(200);
        keepAlives.scheduleAtFixedRate(
                () -> {
                    try {
                        o.keepAlive();
                    } catch (RuntimeException ignored) {
                        // the test is over
                    }
                },
                200,
                200,
                TimeUnit.MILLISECONDS);
        o.await(BarrierRequest.class, 1, WAIT);
        o.await(SetProcessingGraphRequest.class, 1, WAIT);
        return o;
    }

    /** openbox_tls_refused_total{reason}. */
    private double refused(String reason) {
        return registry.get("openbox.tls.refused")
                .tag("reason", reason)
                .counter()
                .count();
    }

    private ObiSession session(long dpid) {
        return manager.session(dpid).orElseThrow(() -> new AssertionError("no session for OBI " + dpid));
    }

    private static void assertRefusedAtHandshake(TestObi o) {
        Throwable t = null;
        try {
            o.hello();
        } catch (UncheckedIOException e) {
            t = e.getCause();
        }
        assertThat(t).as("the handshake fails").isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void obiWithItsCertificateGetsItsGraphOverHttpsFromTheController() throws Exception {
        TestObi o = connected(8101);
        ObiSession s = session(8101);
        assertThat(s.client().base().toString()).isEqualTo("https://127.0.0.1:" + o.port());
        assertThat(s.state()).isEqualTo(ObiState.UP);
        await().atMost(WAIT).until(() -> String.valueOf(s.graphStatus()).startsWith("running"));
        // every down message came over TLS from the controller's certificate, checked by the OBI's server
        assertThat(o.peers()).isNotEmpty().containsOnly("CN=openbox-controller");
        assertThat(o.peers()).hasSize(o.received().size());
    }

    @Test
    void southboundMessageWithoutClientCertificateIsRefused() throws Exception {
        double before = refused("no_client_certificate");
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry(
                "ca",
                java.security.cert.CertificateFactory.getInstance("X.509")
                        .generateCertificate(Files.newInputStream(PKI.caCert())));
        given().config(RestAssuredConfig.config()
                        .sslConfig(SSLConfig.sslConfig().trustStore(trust)))
                .baseUri("https://127.0.0.1")
                .port(port)
                .contentType("application/json")
                .body("{\"type\": \"Hello\", \"xid\": 4, \"dpid\": 8102, \"version\": \"1.1.0\", \"capabilities\": {}}")
                .when()
                .post("/message/Hello")
                .then()
                .statusCode(403)
                .body("type", equalTo("Error"))
                .body("error_type", equalTo("FORBIDDEN"))
                .body("error_subtype", equalTo("NOT_PERMITTED"))
                .body("message", containsString("client certificate"));
        // the same by a TLS client of the CA without a certificate: no session either
        TestObi anonymous = obi(8102, null, PKI.obi(8102));
        assertThat(anonymous.hello().statusCode()).isEqualTo(403);
        assertThat(manager.session(8102)).isEmpty();
        assertThat(refused("no_client_certificate")).isEqualTo(before + 2);
    }

    @Test
    void helloForAnotherDpidThanTheCertificatesIsAnIdentityConflict(CapturedOutput output) throws Exception {
        TestObi genuine = connected(8105);
        ObiSession s = session(8105);
        await().atMost(WAIT).until(() -> String.valueOf(s.graphStatus()).startsWith("running"));
        String endpoint = s.client().base().toString();
        int graphs = genuine.received(SetProcessingGraphRequest.class).size();

        // OBI 8106's certificate speaking for 8105, from its own endpoint
        double before = refused("dpid_conflict");
        TestObi forger = obi(8105, PKI.obi(8106), PKI.obi(8106));
        HttpResponse<String> hello = forger.hello();
        assertThat(hello.statusCode()).isEqualTo(403);
        assertThat(hello.body())
                .contains("\"error_type\":\"FORBIDDEN\"")
                .contains("\"error_subtype\":\"NOT_PERMITTED\"")
                .contains("certificate is for dpid 8106");
        assertThat(forger.keepAlive().statusCode()).isEqualTo(403);
        assertThat(forger.alert("fw_classifier", "forged").statusCode()).isEqualTo(403);
        assertThat(refused("dpid_conflict")).isEqualTo(before + 3);
        assertThat(output.getOut())
                .containsPattern(
                        "identity conflict: Hello for dpid 8105 from 127\\.0\\.0\\.1 carries the certificate of dpid 8106");

        // the genuine OBI keeps its session, endpoint and graph; the forger is sent nothing
        Thread.sleep(1500);
        assertThat(s.state()).isEqualTo(ObiState.UP);
        assertThat(s.client().base().toString()).isEqualTo(endpoint);
        assertThat(s.graphStatus()).startsWith("running");
        assertThat(genuine.received(SetProcessingGraphRequest.class)).hasSize(graphs);
        assertThat(forger.received()).isEmpty();
    }

    @Test
    void anAnswerToAnotherObisRequestIsRefused(CapturedOutput output) throws Exception {
        TestObi asked = connected(8113);
        TestObi other = connected(8114);
        asked.neverAnswer(m -> m instanceof GlobalStatsRequest);
        CompletableFuture<JsonNode> stats = queries.globalStats(session(8113));
        long xid = asked.await(GlobalStatsRequest.class, 1, WAIT).get(0).xid();
        ObjectNode body = new ObjectMapper().createObjectNode().put("uptime", 99);

        HttpResponse<String> forged = other.post(new GlobalStatsResponse(xid, body));
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(forged.body()).contains("certificate is for dpid 8114, not for dpid 8113");
        assertThat(output.getOut())
                .contains("identity conflict: GlobalStatsResponse for dpid 8113 from 127.0.0.1"
                        + " carries the certificate of dpid 8114");
        assertThat(stats).isNotDone();

        assertThat(asked.post(new GlobalStatsResponse(xid, body)).statusCode()).isEqualTo(200);
        assertThat(stats.get(5, TimeUnit.SECONDS).get("uptime").asInt()).isEqualTo(99);
    }

    @Test
    void certificateFromAnotherCaIsRefused() throws Exception {
        assertRefusedAtHandshake(obi(8107, PKI.obiFromOtherCa(8107), PKI.obi(8107)));
        assertThat(manager.session(8107)).isEmpty();
    }

    @Test
    void expiredCertificateIsRefused() throws Exception {
        assertRefusedAtHandshake(obi(8108, PKI.expiredObi(8108), PKI.obi(8108)));
        assertThat(manager.session(8108)).isEmpty();
    }

    @Test
    void certificateNamingNoDpidIsRefused() throws Exception {
        double before = refused("no_dpid");
        TestObi o = obi(8111, PKI.custom("no-dpid", "somebody", "IP:127.0.0.1"), PKI.obi(8111));
        HttpResponse<String> hello = o.hello();
        assertThat(hello.statusCode()).isEqualTo(403);
        assertThat(hello.body()).contains("names no dpid");
        assertThat(refused("no_dpid")).isEqualTo(before + 1);
        assertThat(manager.session(8111)).isEmpty();
    }

    @Test
    void obiWhoseServerCertificateIsAnotherDpidsIsSentNothingAndReported(CapturedOutput output) throws Exception {
        double before = refused("obi_server_certificate");
        TestObi o = obi(8109, PKI.obi(8109), PKI.obi(8110));
        assertThat(o.hello().statusCode()).isEqualTo(200);
        ObiSession s = session(8109);
        await().atMost(WAIT).until(() -> "identity error".equals(s.graphStatus()));
        assertThat(s.lastError())
                .contains("identity error")
                .contains("dpid 8110")
                .contains("OBI 8109");
        assertThat(output.getOut()).contains("identity conflict: OBI 8109 at https://127.0.0.1:" + o.port());
        // the handshake failed before any message: nothing reached it, no graph in particular
        assertThat(o.received()).isEmpty();
        assertThat(o.peers()).isEmpty();
        assertThat(s.established()).isFalse();
        assertThat(refused("obi_server_certificate")).isGreaterThan(before);
    }
}
