package org.openbox.protocol.message;

import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;

/** Spec 4.2.8 (wire type Error): the subtype belongs to the type; message texts are optional. */
public record ErrorMessage(
        long xid, ErrorType errorType, ErrorSubtype errorSubtype, String message, String extendedMessage)
        implements Message {
    @Override
    public String type() {
        return "Error";
    }
}
