package org.openbox.controller.tls;

import java.security.cert.CertificateException;

/**
 * The OBI at an endpoint presented a certificate from the controller's CA that is not the
 * certificate of the dpid whose session uses that endpoint: the handshake is aborted and
 * nothing is sent there.
 */
public class ObiIdentityException extends CertificateException {

    public ObiIdentityException(String message) {
        super(message);
    }

    /** The identity failure among {@code e}'s causes, if any. */
    public static ObiIdentityException find(Throwable e) {
        for (int depth = 0; e != null && depth < 16; e = e.getCause(), depth++) {
            if (e instanceof ObiIdentityException id) {
                return id;
            }
        }
        return null;
    }
}
