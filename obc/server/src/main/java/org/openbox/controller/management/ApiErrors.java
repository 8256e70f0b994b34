package org.openbox.controller.management;

import io.swagger.v3.oas.annotations.media.Schema;

/** The error bodies of the management API, as documented in its OpenAPI description. */
final class ApiErrors {

    private ApiErrors() {}

    /**
     * 401 and 403 (security), and failures of a query forwarded to OBIs (502, 504, and 400/403/404
     * refusals by the handle router).
     */
    @Schema(
            name = "ApiError",
            description = "An error of the management API: what went wrong, and for refusals in the"
                    + " OpenBox protocol's terms, its Error type and subtype.")
    record ApiError(
            @Schema(description = "what went wrong, one line", requiredMode = Schema.RequiredMode.REQUIRED)
                    String error,
            @Schema(description = "OpenBox Error type (e.g. BAD_REQUEST, FORBIDDEN)") String error_type,
            @Schema(description = "OpenBox Error subtype (e.g. ILLEGAL_ARGUMENT, NOT_PERMITTED)")
                    String error_subtype) {}

    /** 400 and 404 answered by the controller's request handling (unknown OBI or application, a bad parameter). */
    @Schema(
            name = "StatusError",
            description = "A request the controller refuses itself: unknown OBI or application,"
                    + " a malformed or out-of-range parameter.")
    record StatusError(
            @Schema(description = "when") String timestamp,
            @Schema(description = "HTTP status") int status,
            @Schema(description = "HTTP reason phrase") String error,
            @Schema(description = "what is wrong, one line") String message,
            @Schema(description = "the request path") String path) {}
}
