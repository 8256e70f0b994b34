package org.openbox.controller.testobi;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;

/**
 * Certificates for tests, made with the {@code openssl} command as the front end makes them
 * (EC P-256; OBI: {@code CN=obi-N}, SAN {@code URI:urn:openbox:dpid:N, IP:127.0.0.1};
 * controller: {@code CN=openbox-controller}, SAN {@code DNS:localhost, IP:127.0.0.1}; both
 * serverAuth and clientAuth), plus the wrong ones: another CA's, expired, CN only.
 */
public final class TestPki {

    /** A certificate and its key (PEM files). */
    public record Identity(Path cert, Path key) {}

    private final Path dir;

    private TestPki(Path dir) {
        this.dir = dir;
    }

    /** Creates the CA, the controller's certificate and another CA in {@code dir}. */
    public static TestPki create(Path dir) {
        TestPki pki = new TestPki(dir);
        pki.ca("ca", "openbox-test-ca");
        pki.ca("other-ca", "someone-else-ca");
        pki.sign("controller", "openbox-controller", "DNS:localhost,IP:127.0.0.1", "ca", 30);
        return pki;
    }

    public Path dir() {
        return dir;
    }

    public Path caCert() {
        return dir.resolve("ca.crt");
    }

    public Identity controller() {
        return identity("controller");
    }

    /** {@code obi-N} from the CA. */
    public Identity obi(long dpid) {
        return signed("obi-" + dpid, "obi-" + dpid, obiSan(dpid), "ca", 30);
    }

    /** {@code obi-N} from another CA. */
    public Identity obiFromOtherCa(long dpid) {
        return signed("other-obi-" + dpid, "obi-" + dpid, obiSan(dpid), "other-ca", 30);
    }

    /** {@code obi-N} from the CA, expired. */
    public Identity expiredObi(long dpid) {
        return signed("expired-obi-" + dpid, "obi-" + dpid, obiSan(dpid), "ca", -1);
    }

    /** A certificate from the CA with the given subject CN and SAN (null: none). */
    public Identity custom(String name, String cn, String san) {
        return signed(name, cn, san, "ca", 30);
    }

    /**
     * TLS presenting {@code id} (none when null) and trusting the CA only. Like an OBI built
     * on OpenSSL, it presents its certificate whichever CAs the server names.
     */
    public SSLContext context(Identity id) {
        PemSslStoreDetails keys = id == null
                ? null
                : PemSslStoreDetails.forCertificate(location(id.cert())).withPrivateKey(location(id.key()));
        SslBundle bundle =
                SslBundle.of(new PemSslStoreBundle(keys, PemSslStoreDetails.forCertificate(location(caCert()))));
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            KeyManager[] km = bundle.getManagers().getKeyManagers();
            if (id != null) {
                String alias = bundle.getStores().getKeyStore().aliases().nextElement();
                km = new KeyManager[] {new Presenting((X509ExtendedKeyManager) km[0], alias)};
            }
            ctx.init(km, bundle.getManagers().getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Chooses its one key for every server, without looking at the issuers the server accepts. */
    private static final class Presenting extends X509ExtendedKeyManager {
        private final X509ExtendedKeyManager keys;
        private final String alias;

        Presenting(X509ExtendedKeyManager keys, String alias) {
            this.keys = keys;
            this.alias = alias;
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return alias;
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return alias;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return keys.chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return keys.chooseEngineServerAlias(keyType, issuers, engine);
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return new String[] {alias};
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return keys.getServerAliases(keyType, issuers);
        }

        @Override
        public X509Certificate[] getCertificateChain(String a) {
            return keys.getCertificateChain(a);
        }

        @Override
        public PrivateKey getPrivateKey(String a) {
            return keys.getPrivateKey(a);
        }
    }

    /** The Spring properties of the controller's SSL bundle {@code openbox}. */
    public List<String> controllerBundle() {
        return List.of(
                "spring.ssl.bundle.pem.openbox.keystore.certificate="
                        + location(controller().cert()),
                "spring.ssl.bundle.pem.openbox.keystore.private-key="
                        + location(controller().key()),
                "spring.ssl.bundle.pem.openbox.truststore.certificate=" + location(caCert()));
    }

    public static String location(Path p) {
        return "file:" + p.toAbsolutePath();
    }

    private static String obiSan(long dpid) {
        return "URI:urn:openbox:dpid:" + dpid + ",IP:127.0.0.1";
    }

    private Identity identity(String name) {
        return new Identity(dir.resolve(name + ".crt"), dir.resolve(name + ".key"));
    }

    private synchronized Identity signed(String name, String cn, String san, String ca, int days) {
        Identity id = identity(name);
        if (!Files.exists(id.cert())) {
            sign(name, cn, san, ca, days);
        }
        return id;
    }

    private void ca(String name, String cn) {
        openssl(
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                name + ".key",
                "-out",
                name + ".crt",
                "-days",
                "3650",
                "-subj",
                "/CN=" + cn,
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign,cRLSign");
    }

    private void sign(String name, String cn, String san, String ca, int days) {
        try {
            List<String> ext = new ArrayList<>(List.of(
                    "basicConstraints=CA:FALSE",
                    "keyUsage=critical,digitalSignature",
                    "extendedKeyUsage=serverAuth,clientAuth"));
            if (san != null) {
                ext.add("subjectAltName=" + san);
            }
            Files.write(dir.resolve(name + ".ext"), ext, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        openssl(
                "req",
                "-new",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                name + ".key",
                "-out",
                name + ".csr",
                "-subj",
                "/CN=" + cn);
        openssl(
                "x509",
                "-req",
                "-in",
                name + ".csr",
                "-CA",
                ca + ".crt",
                "-CAkey",
                ca + ".key",
                "-CAcreateserial",
                "-days",
                String.valueOf(days),
                "-extfile",
                name + ".ext",
                "-out",
                name + ".crt");
    }

    private void openssl(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add("openssl");
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
            }
        } catch (IOException e) {
            throw new IllegalStateException("openssl: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
