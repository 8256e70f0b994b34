package org.openbox.controller.tls;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.OptionalLong;
import org.openbox.controller.southbound.SouthboundErrors;
import org.openbox.protocol.ErrorSubtype;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * With TLS on, the southbound paths ({@code /message/**}) serve only OBIs: the request must
 * carry a client certificate the server verified against the CA (servlet attribute
 * {@code jakarta.servlet.request.X509Certificate}) that names a dpid
 * ({@link DpidCertificates}). Otherwise: 403 with the protocol Error FORBIDDEN /
 * NOT_PERMITTED, and the body is not read. The dpid is left in the request attribute
 * {@link #DPID} for {@link SouthboundIdentity}. Other paths pass unchanged.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 1)
public class ClientCertificateFilter extends OncePerRequestFilter {

    /** Request attribute: the dpid (Long) of the verified client certificate. */
    public static final String DPID = "org.openbox.controller.tls.dpid";

    static final String CERTIFICATES = "jakarta.servlet.request.X509Certificate";

    private static final Logger log = LoggerFactory.getLogger(ClientCertificateFilter.class);

    private final TransportSecurity security;
    private final SouthboundErrors errors;
    private final TlsMetrics metrics;

    public ClientCertificateFilter(TransportSecurity security, SouthboundErrors errors, TlsMetrics metrics) {
        this.security = security;
        this.errors = errors;
        this.metrics = metrics;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !security.enabled() || !request.getRequestURI().startsWith("/message/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        X509Certificate[] certs = request.getAttribute(CERTIFICATES) instanceof X509Certificate[] c ? c : null;
        if (certs == null || certs.length == 0) {
            log.debug("southbound request from {} without a client certificate refused", request.getRemoteAddr());
            metrics.noClientCertificate();
            refuse(
                    response,
                    "southbound messages need the client certificate of an OBI (TLS with a certificate"
                            + " from the controller's CA)");
            return;
        }
        OptionalLong dpid = DpidCertificates.dpidOf(certs[0]);
        if (dpid.isEmpty()) {
            log.warn(
                    "southbound request from {} refused: its client certificate ({}) names no OBI dpid",
                    request.getRemoteAddr(),
                    certs[0].getSubjectX500Principal().getName());
            metrics.noDpid();
            refuse(
                    response,
                    "the client certificate ("
                            + certs[0].getSubjectX500Principal().getName() + ") is not an OBI's: it names no dpid");
            return;
        }
        request.setAttribute(DPID, dpid.getAsLong());
        chain.doFilter(request, response);
    }

    private void refuse(HttpServletResponse response, String message) throws IOException {
        var answer = errors.respond(HttpStatus.FORBIDDEN, 0, ErrorSubtype.NOT_PERMITTED, message);
        response.setStatus(answer.getStatusCode().value());
        response.setContentType("application/json");
        response.getOutputStream().write(answer.getBody().getBytes(StandardCharsets.UTF_8));
    }
}
