package org.openbox.controller.tls;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Optional;
import java.util.OptionalLong;
import org.openbox.controller.obi.PendingRequests;
import org.openbox.controller.southbound.Rejection;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.message.Alert;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.Hello;
import org.openbox.protocol.message.KeepAlive;
import org.openbox.protocol.message.Log;
import org.openbox.protocol.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * With TLS on, an up message is taken only from the OBI it speaks for: the dpid of the client
 * certificate ({@link ClientCertificateFilter#DPID}) must be the message's dpid (Hello,
 * KeepAlive), its {@code origin_dpid} (Alert, Log) or, for a response or Error, the dpid of
 * the OBI the answered request went to. Otherwise FORBIDDEN / NOT_PERMITTED (HTTP 403), logged
 * as an identity conflict naming both dpids and the peer address; the message has no effect.
 * An answer to an xid with no outstanding request names no dpid and passes (it is ignored).
 */
@Component
public class SouthboundIdentity {

    private static final Logger log = LoggerFactory.getLogger(SouthboundIdentity.class);

    private final TransportSecurity security;
    private final PendingRequests pending;
    private final TlsMetrics metrics;

    public SouthboundIdentity(TransportSecurity security, PendingRequests pending, TlsMetrics metrics) {
        this.security = security;
        this.pending = pending;
        this.metrics = metrics;
    }

    /** Empty when the message may be handled; else the refusal. */
    public Optional<Rejection> check(Message m, HttpServletRequest request) {
        if (!security.enabled()) {
            return Optional.empty();
        }
        if (!(request.getAttribute(ClientCertificateFilter.DPID) instanceof Long certified)) {
            return Optional.of(new Rejection(ErrorSubtype.NOT_PERMITTED, "no verified OBI client certificate"));
        }
        OptionalLong claimed = claimedDpid(m);
        if (claimed.isEmpty() || claimed.getAsLong() == certified) {
            return Optional.empty();
        }
        log.warn(
                "identity conflict: {} for dpid {} from {} carries the certificate of dpid {}; refused",
                m.type(),
                claimed.getAsLong(),
                request.getRemoteAddr(),
                certified);
        metrics.dpidConflict();
        return Optional.of(new Rejection(
                ErrorSubtype.NOT_PERMITTED,
                "the client certificate is for dpid " + certified + ", not for dpid " + claimed.getAsLong()));
    }

    private OptionalLong claimedDpid(Message m) {
        if (m instanceof Hello h) {
            return OptionalLong.of(h.dpid());
        } else if (m instanceof KeepAlive k) {
            return OptionalLong.of(k.dpid());
        } else if (m instanceof Alert a) {
            return OptionalLong.of(a.originDpid());
        } else if (m instanceof Log l) {
            return OptionalLong.of(l.originDpid());
        } else if (m instanceof ErrorMessage || m.type().endsWith("Response")) {
            return pending.peek(m.xid()).map(p -> OptionalLong.of(p.dpid())).orElse(OptionalLong.empty());
        }
        return OptionalLong.empty(); // a down message: refused by the handler
    }
}
