package org.openbox.protocol;

/**
 * A rejected protocol input. Carries the spec 3.4 subtype (and thereby the type) that the
 * receiver reports back in an Error message; the text names the offending field.
 */
public class ProtocolException extends RuntimeException {
    private final ErrorSubtype subtype;

    public ProtocolException(ErrorSubtype subtype, String message) {
        super(message);
        this.subtype = subtype;
    }

    public ErrorType type() {
        return subtype.type();
    }

    public ErrorSubtype subtype() {
        return subtype;
    }
}
