package org.openbox.controller.southbound;

import com.fasterxml.jackson.databind.JsonNode;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.message.ErrorMessage;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;

/**
 * Builds the HTTP error answers of the southbound endpoint: a status and a JSON body that
 * is a protocol Error message ({@code type: "Error"}, {@code error_type},
 * {@code error_subtype}, {@code message}). The xid is the request's xid when it can be read,
 * else 0.
 */
@Component
public class SouthboundErrors {

    private final MessageCodec codec;

    public SouthboundErrors(MessageCodec codec) {
        this.codec = codec;
    }

    public ResponseEntity<String> badRequest(byte[] body, ErrorSubtype subtype, String message) {
        return respond(statusFor(subtype), xidOf(body), subtype, message);
    }

    public ResponseEntity<String> respond(HttpStatus status, long xid, ErrorSubtype subtype, String message) {
        ErrorMessage error = new ErrorMessage(xid, subtype.type(), subtype, message, null);
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_JSON)
                .body(codec.encode(error));
    }

    private static HttpStatus statusFor(ErrorSubtype subtype) {
        if (subtype == ErrorSubtype.INTERNAL_ERROR) {
            return HttpStatus.INTERNAL_SERVER_ERROR;
        }
        return subtype.type() == ErrorType.FORBIDDEN ? HttpStatus.FORBIDDEN : HttpStatus.BAD_REQUEST;
    }

    /** Best-effort xid of a (possibly invalid) body, so the OBI can correlate the error. */
    long xidOf(byte[] body) {
        try {
            JsonNode node = codec.mapper().readTree(body);
            JsonNode xid = node == null ? null : node.get("xid");
            if (xid != null && xid.canConvertToLong() && xid.isIntegralNumber() && xid.asLong() >= 0) {
                return xid.asLong();
            }
        } catch (Exception ignored) {
            // not JSON: no xid to echo
        }
        return 0;
    }
}
