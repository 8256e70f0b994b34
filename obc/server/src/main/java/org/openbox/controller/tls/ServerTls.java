package org.openbox.controller.tls;

import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.web.server.Ssl;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.server.ConfigurableServletWebServerFactory;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

/**
 * Serves HTTPS on the controller's port with the SSL bundle {@value TlsProperties#BUNDLE}
 * when TLS is on, asking for a client certificate without requiring one (browsers and
 * management clients come without; the southbound paths require it, see
 * {@link ClientCertificateFilter}). Runs after Spring Boot's own {@code server.ssl.*} set-up.
 */
@Component
public class ServerTls implements WebServerFactoryCustomizer<ConfigurableServletWebServerFactory>, Ordered {

    private final TransportSecurity security;
    private final SslBundles bundles;

    public ServerTls(TransportSecurity security, SslBundles bundles) {
        this.security = security;
        this.bundles = bundles;
    }

    @Override
    public void customize(ConfigurableServletWebServerFactory factory) {
        if (!security.enabled()) {
            return;
        }
        Ssl ssl = new Ssl();
        ssl.setBundle(TlsProperties.BUNDLE);
        ssl.setClientAuth(Ssl.ClientAuth.WANT);
        factory.setSsl(ssl);
        factory.setSslBundles(bundles);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
