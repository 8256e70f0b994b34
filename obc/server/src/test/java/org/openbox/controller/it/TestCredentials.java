package org.openbox.controller.it;

import io.restassured.RestAssured;

/**
 * The management principals configured for every controller the tests start
 * (src/test/resources/config/application.properties). {@link #asOperator()} makes REST
 * Assured's requests authenticate as the operator (HTTP Basic, sent with the first request).
 */
final class TestCredentials {

    static final String OPERATOR = "test-operator";
    static final String OPERATOR_PASSWORD = "operator-secret";
    static final String VIEWER = "test-viewer";
    static final String VIEWER_PASSWORD = "viewer-secret";
    static final String OPERATOR_TOKEN = "test-operator-token";
    static final String VIEWER_TOKEN = "test-viewer-token";

    private TestCredentials() {}

    /** Every later REST Assured request authenticates as the operator unless it says otherwise. */
    static void asOperator() {
        RestAssured.authentication = RestAssured.preemptive().basic(OPERATOR, OPERATOR_PASSWORD);
    }
}
