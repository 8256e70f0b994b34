package org.openbox.controller.tls;

import java.security.GeneralSecurityException;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.springframework.boot.ssl.SslBundle;

/** The TLS set-up of the controller's connections to OBIs, from its SSL bundle. */
public final class ObiSslContexts {

    /** TLS 1.3 first; 1.2 for OBIs built without it. */
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private ObiSslContexts() {}

    /**
     * A context presenting the bundle's key and certificate and checking servers with
     * {@link ObiTrustManager} (the bundle's CA, and the dpid {@code peers} expects).
     */
    public static SSLContext context(SslBundle bundle, ObiPeers peers, TlsMetrics metrics) {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(bundle.getStores().getTrustStore());
            X509ExtendedTrustManager ca = null;
            for (TrustManager tm : tmf.getTrustManagers()) {
                if (tm instanceof X509ExtendedTrustManager x) {
                    ca = x;
                }
            }
            if (ca == null) {
                throw new IllegalStateException("no X.509 trust manager for SSL bundle '" + TlsProperties.BUNDLE + "'");
            }
            KeyManager[] keys = bundle.getManagers().getKeyManagers();
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(keys, new TrustManager[] {new ObiTrustManager(ca, peers, metrics)}, null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SSL bundle '" + TlsProperties.BUNDLE + "': " + e.getMessage(), e);
        }
    }

    public static SSLParameters parameters() {
        SSLParameters p = new SSLParameters();
        p.setProtocols(PROTOCOLS.clone());
        return p;
    }
}
