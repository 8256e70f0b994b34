package org.openbox.controller.management;

import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** The management API's documented responses, one annotation each, for its controllers' OpenAPI description. */
final class ApiDocs {

    private static final String JSON = "application/json";

    private ApiDocs() {}

    /** Documents the 401 of a request without a valid login. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    @ApiResponse(
            responseCode = "401",
            description = "no valid login (HTTP Basic, bearer token or UI session)",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.ApiError.class)))
    @interface Unauthorized {}

    /** Documents the 403 of a missing role or CSRF token. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    @ApiResponse(
            responseCode = "403",
            description = "the login lacks the role (OPERATOR for POST), or a bad CSRF token",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.ApiError.class)))
    @interface Forbidden {}

    /** Documents the answer: the return type's JSON. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @ApiResponse(responseCode = "200", description = "OK", useReturnTypeSchema = true)
    @interface Ok {}

    /** Documents the 404 of an unknown OBI or application. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @ApiResponse(
            responseCode = "404",
            description = "no OBI with that dpid, no application with that name, or a"
                    + " block the application does not run on an OBI that is up",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.StatusError.class)))
    @interface NotFound {}

    /** Documents the 400 of a malformed parameter. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @ApiResponse(
            responseCode = "400",
            description = "a malformed or out-of-range parameter (one line in message)",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.StatusError.class)))
    @interface BadRequest {}

    /** Documents the failures of a query forwarded to an OBI. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @ApiResponse(
            responseCode = "502",
            description = "the OBI answered with an Error (type/subtype) or is unreachable",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.ApiError.class)))
    @interface ObiFailures {}

    /** Documents an OBI that does not answer in time. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @ApiResponse(
            responseCode = "504",
            description = "the OBI did not answer in time",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.ApiError.class)))
    @interface ObiTimeout {}
}
