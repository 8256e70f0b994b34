package org.openbox.controller.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;

/**
 * The benchmark's side of mutual TLS, from a directory made by {@code openbox pki} (ca.crt)
 * and bench/control.sh (obi-N.crt / obi-N.key for every simulated OBI): TLS contexts that
 * trust the CA only, presenting OBI N's certificate or none.
 */
final class BenchTls {

    private final Path dir;

    private BenchTls(Path dir) {
        this.dir = dir;
    }

    /** The certificates in {@code dir}; fails naming the file when the CA certificate is missing. */
    static BenchTls open(Path dir) {
        Path ca = dir.resolve("ca.crt");
        if (!Files.isRegularFile(ca)) {
            throw new IllegalArgumentException(
                    ca + ": no CA certificate (make it with ./openbox pki --dir " + dir + ")");
        }
        return new BenchTls(dir);
    }

    /** TLS trusting the CA, presenting no certificate: the operator's view of the management API. */
    SSLContext operator() {
        return context(null);
    }

    /** TLS trusting the CA and presenting OBI {@code dpid}'s certificate, as client and as server. */
    SSLContext obi(long dpid) {
        Path cert = dir.resolve("obi-" + dpid + ".crt");
        Path key = dir.resolve("obi-" + dpid + ".key");
        if (!Files.isRegularFile(cert) || !Files.isRegularFile(key)) {
            throw new IllegalArgumentException(cert + ": no certificate and key for OBI " + dpid);
        }
        return context(PemSslStoreDetails.forCertificate(location(cert)).withPrivateKey(location(key)));
    }

    private SSLContext context(PemSslStoreDetails keys) {
        PemSslStoreDetails trust = PemSslStoreDetails.forCertificate(location(dir.resolve("ca.crt")));
        return SslBundle.of(new PemSslStoreBundle(keys, trust)).createSslContext();
    }

    private static String location(Path p) {
        return "file:" + p.toAbsolutePath();
    }
}
