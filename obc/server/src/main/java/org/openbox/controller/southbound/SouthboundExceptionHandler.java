package org.openbox.controller.southbound;

import org.openbox.protocol.ErrorSubtype;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Keeps the southbound contract on unexpected failures: a JSON Error body, never a stack
 * trace. Unsupported content types are BAD_REQUEST / ILLEGAL_ARGUMENT, a body cut off at
 * {@code openbox.limits.max-body} is 413 with BAD_REQUEST / ILLEGAL_ARGUMENT; anything else is
 * logged and answered INTERNAL_ERROR / INTERNAL_ERROR.
 */
@RestControllerAdvice(assignableTypes = SouthboundController.class)
public class SouthboundExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(SouthboundExceptionHandler.class);
    private final SouthboundErrors errors;

    public SouthboundExceptionHandler(SouthboundErrors errors) {
        this.errors = errors;
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    public ResponseEntity<String> mediaType(HttpMediaTypeNotSupportedException e) {
        return errors.respond(
                HttpStatus.BAD_REQUEST,
                0,
                ErrorSubtype.ILLEGAL_ARGUMENT,
                "unsupported content type: " + e.getContentType() + " (use application/json)");
    }

    @ExceptionHandler(Exception.class)
    public ResponseEntity<String> unexpected(Exception e) {
        if (RequestBodyLimitFilter.causedByLimit(e)) {
            return errors.respond(
                    HttpStatus.PAYLOAD_TOO_LARGE,
                    0,
                    ErrorSubtype.ILLEGAL_ARGUMENT,
                    e.getMessage() == null ? "request body too large" : rootMessage(e));
        }
        log.error("southbound message failed", e);
        return errors.respond(
                HttpStatus.INTERNAL_SERVER_ERROR,
                0,
                ErrorSubtype.INTERNAL_ERROR,
                "internal error: " + e.getClass().getSimpleName());
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage();
    }
}
