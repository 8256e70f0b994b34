package org.openbox.protocol;

/** The error subtypes of spec 3.4.1; every subtype belongs to exactly one {@link ErrorType}. */
public enum ErrorSubtype {
    BAD_VERSION(ErrorType.BAD_REQUEST),
    BAD_TYPE(ErrorType.BAD_REQUEST),
    BAD_GRAPH(ErrorType.BAD_REQUEST),
    BAD_BLOCK(ErrorType.BAD_REQUEST),
    BAD_BLOCK_IMPL(ErrorType.BAD_REQUEST),
    BAD_CONNECTOR(ErrorType.BAD_REQUEST),
    BAD_HEADER_MATCH(ErrorType.BAD_REQUEST),
    BAD_PAYLOAD_MATCH(ErrorType.BAD_REQUEST),
    BAD_FILE(ErrorType.BAD_REQUEST),
    ILLEGAL_ARGUMENT(ErrorType.BAD_REQUEST),
    ILLEGAL_STATE(ErrorType.BAD_REQUEST),
    NOT_PERMITTED(ErrorType.FORBIDDEN),
    NO_ACCESS(ErrorType.FORBIDDEN),
    UNSUPPORTED_VERSION(ErrorType.UNSUPPORTED),
    UNSUPPORTED_BLOCK(ErrorType.UNSUPPORTED),
    UNSUPPORTED_MESSAGE(ErrorType.UNSUPPORTED),
    UNSUPPORTED_OTHER(ErrorType.UNSUPPORTED),
    ADD_MODULE_FAILED(ErrorType.INTERNAL_ERROR),
    INTERNAL_ERROR(ErrorType.INTERNAL_ERROR);

    private final ErrorType type;

    ErrorSubtype(ErrorType type) {
        this.type = type;
    }

    /** The error type this subtype belongs to. */
    public ErrorType type() {
        return type;
    }
}
