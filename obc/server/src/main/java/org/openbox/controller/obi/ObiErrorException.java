package org.openbox.controller.obi;

import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;
import org.openbox.protocol.ProtocolException;

/**
 * A down request failed: the OBI answered with an Error message (or an HTTP error). A
 * {@link ProtocolException}, as the northbound HandleClient promises for OBI errors.
 */
public class ObiErrorException extends ProtocolException {
    private final long dpid;
    private final ErrorType errorType;
    private final ErrorSubtype errorSubtype;

    public ObiErrorException(long dpid, ErrorType errorType, ErrorSubtype errorSubtype, String message) {
        super(
                errorSubtype,
                "OBI " + dpid + ": " + errorType + "/" + errorSubtype + (message == null ? "" : ": " + message));
        this.dpid = dpid;
        this.errorType = errorType;
        this.errorSubtype = errorSubtype;
    }

    public long dpid() {
        return dpid;
    }

    public ErrorType errorType() {
        return errorType;
    }

    public ErrorSubtype errorSubtype() {
        return errorSubtype;
    }
}
