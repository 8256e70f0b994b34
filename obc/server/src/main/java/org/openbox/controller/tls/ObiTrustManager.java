package org.openbox.controller.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.OptionalLong;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Checks the server certificate of an OBI the controller connects to: it must chain to the
 * CA of the controller's bundle and name the dpid of the session that uses the endpoint
 * ({@link ObiPeers}); otherwise the handshake fails with {@link ObiIdentityException} before
 * any message is sent.
 *
 * <p>No host name verification: OBIs are addressed by the address of their Hello
 * ({@code source_addr}, else where the Hello came from), which behind address translation or
 * a wildcard listen address need not be an address in their certificate. What the controller
 * must know is which OBI it talks to, and the dpid in a certificate from its own CA says
 * exactly that; a host name match would add nothing an attacker holding another OBI's
 * certificate could not also satisfy.
 */
final class ObiTrustManager extends X509ExtendedTrustManager {

    private final X509ExtendedTrustManager ca;
    private final ObiPeers peers;
    private final TlsMetrics metrics;

    ObiTrustManager(X509ExtendedTrustManager ca, ObiPeers peers, TlsMetrics metrics) {
        this.ca = ca;
        this.peers = peers;
        this.metrics = metrics;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(
                chain,
                authType,
                engine == null ? null : engine.getPeerHost(),
                engine == null ? -1 : engine.getPeerPort());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        String host = socket == null || socket.getInetAddress() == null
                ? null
                : socket.getInetAddress().getHostAddress();
        check(chain, authType, host, socket == null ? -1 : socket.getPort());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain, authType, null, -1);
    }

    private void check(X509Certificate[] chain, String authType, String host, int port) throws CertificateException {
        ca.checkServerTrusted(chain, authType); // the chain to the CA, validity, key usage; no host name
        try {
            checkDpid(chain[0], host, port);
        } catch (ObiIdentityException e) {
            metrics.obiServerCertificate();
            throw e;
        }
    }

    private void checkDpid(X509Certificate cert, String host, int port) throws ObiIdentityException {
        OptionalLong expected = peers.expected(host, port);
        OptionalLong actual = DpidCertificates.dpidOf(cert);
        String where = host + ":" + port;
        if (expected.isEmpty()) {
            throw new ObiIdentityException("no OBI session uses " + where);
        }
        if (actual.isEmpty()) {
            throw new ObiIdentityException("the server certificate at " + where + " ("
                    + cert.getSubjectX500Principal().getName() + ") names no dpid; OBI " + expected.getAsLong()
                    + " was expected there");
        }
        if (actual.getAsLong() != expected.getAsLong()) {
            throw new ObiIdentityException("the server certificate at " + where + " is for dpid " + actual.getAsLong()
                    + ", not for OBI " + expected.getAsLong() + " whose endpoint it is");
        }
    }

    // the controller is never the server of a connection made with this trust manager

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        throw new CertificateException("not a server");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        throw new CertificateException("not a server");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("not a server");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return ca.getAcceptedIssuers();
    }
}
