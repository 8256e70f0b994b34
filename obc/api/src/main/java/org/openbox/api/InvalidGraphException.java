package org.openbox.api;

import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;

/**
 * A processing graph or block an application built is not valid. The subtype is the error an
 * OBI would report for it (BAD_BLOCK, BAD_CONNECTOR, BAD_GRAPH, BAD_HEADER_MATCH,
 * BAD_PAYLOAD_MATCH, UNSUPPORTED_BLOCK); the message names the block, rule or connector.
 */
public class InvalidGraphException extends ProtocolException {

    public InvalidGraphException(ErrorSubtype subtype, String message) {
        super(subtype, message);
    }
}
