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

    private final ExecutorService executor =
            Executors.newFixedThreadPool(Math.max(4, Runtime.getRuntime().availableProcessors() * 2), r -> {
                Thread t = new Thread(r, "obi-http");
                t.setDaemon(true);
                return t;
            });
    private final HttpClient client;
    private final ObiPeers peers;
    private final String scheme;

    /**
     * Seconds an idle pooled connection is kept: longer than the metrics collector's interval
     * (10 s by default), so each OBI's collection reuses the connection of the round before
     * instead of connecting again (over TLS, a full handshake), and shorter than the OBI's
     * {@code --http-keepalive-ms} (15 s by default), after which it drops an idle connection.
     * The JDK's default (1200 s) is replaced, unless set on the command line, before the
     * first client is built (the JDK reads it once).
     */
    static final String KEEPALIVE_PROPERTY = "jdk.httpclient.keepalive.timeout";

    static final String KEEPALIVE_SECONDS = "12";

    /**
     * A request sent on a pooled connection that the OBI closed meanwhile (an OBI with a
     * shorter {@code --http-keepalive-ms}, or the close crossing the request) fails before
     * any byte of an answer; with this on, the client sends it once more on a new connection.
     * It retries only that case (the OBI closed the connection without reading a request), so
     * no message is delivered twice; by default the JDK retries it for GET and PUT only.
     */
    static final String RETRY_PROPERTY = "jdk.httpclient.enableAllMethodRetry";

    public ObiHttp(TransportSecurity security, ObiPeers peers, TlsMetrics metrics) {
        if (System.getProperty(KEEPALIVE_PROPERTY) == null) {
            System.setProperty(KEEPALIVE_PROPERTY, KEEPALIVE_SECONDS);
        }
        if (System.getProperty(RETRY_PROPERTY) == null) {
            System.setProperty(RETRY_PROPERTY, "true");
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
