package org.openbox.controller.tls;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * {@code openbox_tls_refused_total{reason}}: southbound exchanges refused for the peer's
 * identity. Reasons: {@code no_client_certificate}, {@code no_dpid} (a certificate naming no
 * OBI), {@code dpid_conflict} (a message for another dpid than its certificate's),
 * {@code obi_server_certificate} (an OBI's server certificate not naming its session's dpid:
 * nothing was sent). Handshakes the TLS layer fails (another CA, expired) are not seen here.
 */
@Component
public class TlsMetrics {

    private final Counter noClientCertificate;
    private final Counter noDpid;
    private final Counter dpidConflict;
    private final Counter obiServerCertificate;

    public TlsMetrics(MeterRegistry registry) {
        this.noClientCertificate = counter(registry, "no_client_certificate");
        this.noDpid = counter(registry, "no_dpid");
        this.dpidConflict = counter(registry, "dpid_conflict");
        this.obiServerCertificate = counter(registry, "obi_server_certificate");
    }

    private static Counter counter(MeterRegistry registry, String reason) {
        return Counter.builder("openbox.tls.refused")
                .description("southbound exchanges refused for the peer's identity, by reason")
                .tag("reason", reason)
                .register(registry);
    }

    void noClientCertificate() {
        noClientCertificate.increment();
    }

    void noDpid() {
        noDpid.increment();
    }

    void dpidConflict() {
        dpidConflict.increment();
    }

    void obiServerCertificate() {
        obiServerCertificate.increment();
    }
}
