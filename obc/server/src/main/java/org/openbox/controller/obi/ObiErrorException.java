package org.openbox.controller.obi;

import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;

/** A down request failed: the OBI answered with an Error message (or an HTTP error). */
public class ObiErrorException extends RuntimeException {
    private final long dpid;
    private final ErrorType errorType;
    private final ErrorSubtype errorSubtype;

    public ObiErrorException(long dpid, ErrorType errorType, ErrorSubtype errorSubtype, String message) {
        super("OBI " + dpid + ": " + errorType + "/" + errorSubtype + (message == null ? "" : ": " + message));
        this.dpid = dpid;
        this.errorType = errorType;
        this.errorSubtype = errorSubtype;
    }

    public long dpid() { return dpid; }
    public ErrorType errorType() { return errorType; }
    public ErrorSubtype errorSubtype() { return errorSubtype; }
}
