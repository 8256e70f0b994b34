package org.openbox.controller.management;

import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.openbox.controller.obi.ObiErrorException;
import org.openbox.controller.obi.ObiUnreachableException;
import org.openbox.protocol.ProtocolException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * Maps failures of OBI queries to JSON answers: an OBI Error is 502 with the spec
 * type/subtype, an unreachable OBI 502, no answer in time 504, a block the application
 * does not have (on any OBI that is up) 404, a request the controller refuses itself
 * (unknown handle, out-of-range rule index: 400; NOT_PERMITTED: 403) with type/subtype, a
 * parameter that does not parse ({@code ?dpid=x}) 400.
 */
@RestControllerAdvice(assignableTypes = {ManagementController.class, AlertsController.class})
public class ManagementExceptionHandler {

    /** A parameter of the wrong type ({@code ?dpid=x}): 400 in the shape of the controller's other 400s. */
    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    public ResponseEntity<Map<String, Object>> badParameter(
            MethodArgumentTypeMismatchException e, jakarta.servlet.http.HttpServletRequest request) {
        String value = String.valueOf(e.getValue());
        String message = "parameter '" + e.getName() + "' is not a valid "
                + (e.getRequiredType() == null
                        ? "value"
                        : e.getRequiredType().getSimpleName().toLowerCase(java.util.Locale.ROOT))
                + ": " + (value.length() > 64 ? value.substring(0, 64) + "..." : value);
        return ResponseEntity.badRequest()
                .body(Map.of(
                        "timestamp",
                        java.time.Instant.now().toString(),
                        "status",
                        400,
                        "error",
                        "Bad Request",
                        "message",
                        message,
                        "path",
                        request.getRequestURI()));
    }

    @ExceptionHandler({
        ObiErrorException.class,
        ObiUnreachableException.class,
        TimeoutException.class,
        CompletionException.class,
        IllegalArgumentException.class,
        ProtocolException.class
    })
    public ResponseEntity<Map<String, Object>> obiFailure(Exception e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (t instanceof ObiErrorException err) {
            return ResponseEntity.status(HttpStatus.BAD_GATEWAY)
                    .body(Map.of(
                            "error",
                            String.valueOf(err.getMessage()),
                            "error_type",
                            err.errorType().name(),
                            "error_subtype",
                            err.errorSubtype().name()));
        }
        if (t instanceof ProtocolException refused) {
            // refused by the controller itself (e.g. a handle the block does not have)
            HttpStatus status = refused.type() == org.openbox.protocol.ErrorType.FORBIDDEN
                    ? HttpStatus.FORBIDDEN
                    : HttpStatus.BAD_REQUEST;
            return ResponseEntity.status(status)
                    .body(Map.of(
                            "error",
                            String.valueOf(refused.getMessage()),
                            "error_type",
                            refused.type().name(),
                            "error_subtype",
                            refused.subtype().name()));
        }
        if (t instanceof IllegalArgumentException) {
            return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", String.valueOf(t.getMessage())));
        }
        if (t instanceof TimeoutException) {
            return ResponseEntity.status(HttpStatus.GATEWAY_TIMEOUT)
                    .body(Map.of("error", "the OBI did not answer in time"));
        }
        return ResponseEntity.status(HttpStatus.BAD_GATEWAY).body(Map.of("error", String.valueOf(t.getMessage())));
    }
}
