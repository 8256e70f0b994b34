package org.openbox.controller.southbound;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Optional;
import org.openbox.controller.tls.SouthboundIdentity;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.message.Message;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Southbound REST endpoint: {@code POST /message/{type}} for every message an OBI sends up.
 *
 * <p>The body is decoded with the protocol codec (which also checks that the body's
 * {@code type} equals the path); a valid message is answered 200 at once and handled
 * afterwards. Invalid input gets HTTP 400 with a JSON Error message naming the spec error
 * type and subtype (see {@link SouthboundErrors}). With TLS on, a message from an OBI whose
 * client certificate is for another dpid is refused first (403, see {@link SouthboundIdentity}).
 */
@RestController
public class SouthboundController {

    private final MessageCodec codec;
    private final UpMessageHandler handler;
    private final SouthboundErrors errors;
    private final SouthboundIdentity identity;

    public SouthboundController(
            MessageCodec codec, UpMessageHandler handler, SouthboundErrors errors, SouthboundIdentity identity) {
        this.codec = codec;
        this.handler = handler;
        this.errors = errors;
        this.identity = identity;
    }

    @PostMapping(path = "/message/{type}", produces = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<String> receive(
            @PathVariable("type") String type, @RequestBody(required = false) byte[] body, HttpServletRequest request) {
        byte[] bytes = body == null ? new byte[0] : body;
        Message message;
        try {
            message = codec.decode(type, bytes);
        } catch (ProtocolException e) {
            return errors.badRequest(bytes, e.subtype(), e.getMessage());
        }
        Optional<Rejection> rejection = identity.check(message, request);
        if (rejection.isEmpty()) {
            rejection = handler.handle(message, request.getRemoteAddr());
        }
        return rejection
                .map(reject -> errors.badRequest(bytes, reject.subtype(), reject.message()))
                .orElseGet(() -> ResponseEntity.ok().build());
    }
}
