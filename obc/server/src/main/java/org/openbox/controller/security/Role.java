package org.openbox.controller.security;

/**
 * Management roles. A VIEWER reads (GET /api/**, the web UI, OpenAPI, Prometheus); an
 * OPERATOR also changes what runs (POST/PUT/DELETE /api/**: start, stop, reload ...).
 * OPERATOR includes VIEWER.
 */
public enum Role {
    VIEWER,
    OPERATOR;

    /** The Spring authorities a principal with this role holds. */
    public java.util.List<String> authorities() {
        return this == OPERATOR ? java.util.List.of("ROLE_VIEWER", "ROLE_OPERATOR") : java.util.List.of("ROLE_VIEWER");
    }
}
