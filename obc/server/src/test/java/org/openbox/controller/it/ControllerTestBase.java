package org.openbox.controller.it;

import static org.awaitility.Awaitility.await;

import io.restassured.RestAssured;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.openbox.controller.ControllerApplication;
import org.openbox.controller.testobi.TestObi;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;

/**
 * Common set-up of the integration tests: the whole controller on a random port with the
 * test applications, plain HTTP ({@code openbox.insecure}), a 2 s keep-alive timeout, and helpers to run test OBIs that send
 * KeepAlive like real ones. All test classes share one Spring context; each test uses its
 * own dpids.
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
            // plain HTTP: test OBIs and the real OBI run without certificates (TLS: SouthboundTlsTest)
            "openbox.insecure=true",
            // no data-plane metrics collection: tests count the reads their OBIs get (DataPlaneMetricsTest collects)
            "openbox.metrics.interval=off",
            "openbox.no-app-action-per-obi.164=drop",
            // AppLimitsTest: one limit per application name
            "openbox.limits.apps.lim-rules.max-rules-per-classifier=5",
            "openbox.limits.apps.lim-patterns.max-patterns=4",
            "openbox.limits.apps.lim-bytes.max-pattern-bytes=64B",
            "openbox.limits.apps.lim-blocks.max-blocks-per-graph=4",
            "openbox.limits.apps.lim-reload.max-patterns=3",
            // the shared test key of protocol/vectors/module-signature signs custom modules
            "openbox.modules.signing-key=" + ControllerTestBase.TEST_SIGNING_KEY,
            // TestApps holds a deliberately broken application, refused while the others run
            "openbox.allow-failed-apps=true"
        })
@Import(TestApps.class)
@AutoConfigureObservability
abstract class ControllerTestBase {

    static final Duration WAIT = Duration.ofSeconds(20);
    /** The module signing test key (relative to obc/server, where Maven runs the tests). */
    static final String TEST_SIGNING_KEY = "../../protocol/vectors/module-signature/test-signing.key";

    static final String TEST_TRUST = "../../protocol/vectors/module-signature/test-signing.pub";

    @LocalServerPort
    int port;

    @Autowired
    TestApps.Firewall fw;

    @Autowired
    TestApps.Ips ips;

    @Autowired
    TestApps.LoadBalancer lb;

    private final List<TestObi> obis = new ArrayList<>();
    private final ScheduledExecutorService keepAlives = Executors.newSingleThreadScheduledExecutor();

    @BeforeEach
    void restAssured() {
        RestAssured.port = port;
        TestCredentials.asOperator();
    }

    @AfterEach
    void closeObis() {
        keepAlives.shutdownNow();
        obis.forEach(TestObi::close);
    }

    String controllerUrl() {
        return "http://127.0.0.1:" + port;
    }

    TestObi obi(long dpid) throws IOException {
        TestObi o = new TestObi(dpid, controllerUrl());
        obis.add(o);
        return o;
    }

    /** Sends KeepAlive every 200 ms until cancelled (the timeout is 2 s). */
    ScheduledFuture<?> keepAlive(TestObi o) {
        return keepAlives.scheduleAtFixedRate(
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
    }

    /** A test OBI that said Hello, keeps itself alive and has received its graph. */
    TestObi connected(long dpid) throws Exception {
        TestObi o = obi(dpid);
        if (o.hello().statusCode() != 200) {
            throw new AssertionError("Hello refused");
        }
        keepAlive(o);
        o.await(org.openbox.protocol.message.BarrierRequest.class, 1, WAIT);
        await().atMost(WAIT)
                .until(() -> o.received(org.openbox.protocol.message.SetProcessingGraphRequest.class)
                                .size()
                        >= 1);
        return o;
    }

    /** Waits until exactly these OBIs are UP (earlier tests' OBIs have timed out). */
    void awaitOnlyUp(java.util.Set<Long> dpids) {
        await().atMost(WAIT).until(() -> {
            List<Object> up = io.restassured.RestAssured.given()
                    .get("/api/obis")
                    .jsonPath()
                    .getList("findAll { it.state == 'UP' }.dpid");
            return up.stream()
                    .map(o -> ((Number) o).longValue())
                    .collect(java.util.stream.Collectors.toSet())
                    .equals(dpids);
        });
    }

    /** Merged blocks of an OBI's graph whose only origin is (app, block). */
    List<String> mergedBlocksOnlyOf(long dpid, String app, String block) {
        java.util.Map<String, List<java.util.Map<String, String>>> prov = io.restassured.RestAssured.given()
                .get("/api/obis/" + dpid + "/graph")
                .jsonPath()
                .getMap("provenance");
        return prov.entrySet().stream()
                .filter(e -> e.getValue().equals(List.of(java.util.Map.of("app", app, "block", block))))
                .map(java.util.Map.Entry::getKey)
                .toList();
    }
}
