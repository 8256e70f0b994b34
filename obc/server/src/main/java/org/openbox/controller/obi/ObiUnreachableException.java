package org.openbox.controller.obi;

/** A down message could not be delivered to an OBI (connection refused, timeout, HTTP error). */
public class ObiUnreachableException extends RuntimeException {
    public ObiUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
