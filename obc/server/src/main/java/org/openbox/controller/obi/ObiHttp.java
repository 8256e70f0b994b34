package org.openbox.controller.obi;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.openbox.controller.tls.ObiPeers;
import org.openbox.controller.tls.ObiSslContexts;
import org.openbox.controller.tls.TlsMetrics;
import org.openbox.controller.tls.TransportSecurity;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * The one HTTP client shared by every OBI connection (HTTP/1.1, connections pooled per OBI
 * endpoint by the client). With TLS on it speaks HTTPS, presents the controller's
 * certificate and accepts an OBI's server certificate only when it comes from the CA and
 * names the dpid of the session that uses that endpoint ({@link #expect}); see
 * {@link org.openbox.controller.tls.ObiTrustManager} for why host names are not checked.
 */
@Component
public class ObiHttp implements DisposableBean {

    private final ExecutorService executor = Executors.newFixedThreadPool(
            Math.max(4, Runtime.getRuntime().availableProcessors() * 2), r -> {
                Thread t = new Thread(r, "obi-http");
                t.setDaemon(true);
                return t;
            });
    private final HttpClient client;
    private final ObiPeers peers;
    private final String scheme;

    /**
     * Seconds an idle pooled connection is kept. An OBI drops a connection after
     * {@code --http-timeout-ms} (5 s by default) of silence; a request the client then sends
     * on such a connection fails ("header parser received no bytes") and is not retried, as
     * POSTs are not. The JDK's default (1200 s) is replaced, unless set on the command line,
     * before the first client is built (the JDK reads it once).
     */
    static final String KEEPALIVE_PROPERTY = "jdk.httpclient.keepalive.timeout";
    static final String KEEPALIVE_SECONDS = "3";

    public ObiHttp(TransportSecurity security, ObiPeers peers, TlsMetrics metrics) {
        if (System.getProperty(KEEPALIVE_PROPERTY) == null) {
            System.setProperty(KEEPALIVE_PROPERTY, KEEPALIVE_SECONDS);
        }
        this.peers = peers;
        this.scheme = security.scheme();
        HttpClient.Builder b = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .executor(executor);
        security.bundle().ifPresent(bundle -> b.sslContext(ObiSslContexts.context(bundle, peers, metrics))
                .sslParameters(ObiSslContexts.parameters()));
        this.client = b.build();
    }

    public HttpClient client() {
        return client;
    }

    /** {@code https} with TLS, else {@code http}. */
    public String scheme() {
        return scheme;
    }

    /** The session of {@code dpid} now talks to {@code endpoint}: its certificate must name that dpid. */
    void expect(URI endpoint, long dpid) {
        peers.expect(endpoint, dpid);
    }

    /** The session of {@code dpid} no longer talks to {@code endpoint}. */
    void forget(URI endpoint, long dpid) {
        peers.forget(endpoint, dpid);
    }

    @Override
    public void destroy() {
        executor.shutdownNow();
    }
}
