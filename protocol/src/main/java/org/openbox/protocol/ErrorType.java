package org.openbox.protocol;

/** The error types of the OpenBox protocol (spec 1.1.0 section 3.4). */
public enum ErrorType {
    /** The message cannot be understood. */
    BAD_REQUEST,
    /** The request is forbidden. */
    FORBIDDEN,
    /** The message is not supported by the receiver. */
    UNSUPPORTED,
    /** There was an internal error. */
    INTERNAL_ERROR
}
