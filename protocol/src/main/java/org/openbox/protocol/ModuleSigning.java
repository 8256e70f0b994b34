package org.openbox.protocol;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a custom module's Ed25519 signature covers, and how its key is named; the OBI's
 * verifier (obi/src/control/module_signature.hh) and {@code ./openbox sign-module} use the
 * same definitions, pinned by the test vector protocol/vectors/module-signature/ed25519.json.
 *
 * <pre>
 * signed bytes: "openbox-module-v1" 0x00 module_name 0x00 module_version 0x00 SHA-256(module bytes)
 * key id:       hex of the first 8 bytes of SHA-256(raw 32-byte Ed25519 public key)
 * </pre>
 */
public final class ModuleSigning {

    /** The signature scheme (java.security name). */
    public static final String ALGORITHM = "Ed25519";

    private static final byte[] DOMAIN = "openbox-module-v1".getBytes(StandardCharsets.US_ASCII);
    /** X.509 SubjectPublicKeyInfo of an Ed25519 key: this 12-byte prefix, then the raw key. */
    private static final byte[] X509_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");

    private static final int RAW_KEY_BYTES = 32;

    private ModuleSigning() {}

    /** The bytes an Ed25519 module signature covers; a null version is the empty string. */
    public static byte[] signingInput(String name, String version, byte[] content) {
        if (name.indexOf('\0') >= 0 || (version != null && version.indexOf('\0') >= 0)) {
            throw new IllegalArgumentException("module name and version must not contain NUL characters");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(DOMAIN);
        out.write(0);
        out.writeBytes(name.getBytes(StandardCharsets.UTF_8));
        out.write(0);
        out.writeBytes((version == null ? "" : version).getBytes(StandardCharsets.UTF_8));
        out.write(0);
        out.writeBytes(sha256(content));
        return out.toByteArray();
    }

    /** The key id of a raw 32-byte Ed25519 public key. */
    public static String keyId(byte[] rawPublicKey) {
        if (rawPublicKey.length != RAW_KEY_BYTES) {
            throw new IllegalArgumentException("an Ed25519 public key is 32 bytes, got " + rawPublicKey.length);
        }
        return HexFormat.of().formatHex(Arrays.copyOf(sha256(rawPublicKey), 8));
    }

    /** The key id of an Ed25519 public key. */
    public static String keyId(PublicKey key) {
        return keyId(rawPublicKey(key));
    }

    /** The raw 32 bytes of an Ed25519 public key (from its X.509 encoding). */
    public static byte[] rawPublicKey(PublicKey key) {
        byte[] x509 = key.getEncoded();
        if (x509 == null
                || x509.length != X509_PREFIX.length + RAW_KEY_BYTES
                || !Arrays.equals(x509, 0, X509_PREFIX.length, X509_PREFIX, 0, X509_PREFIX.length)) {
            throw new IllegalArgumentException("not an Ed25519 public key (" + key.getAlgorithm() + ")");
        }
        return Arrays.copyOfRange(x509, X509_PREFIX.length, x509.length);
    }

    /**
     * The Ed25519 private key of a PEM "PRIVATE KEY" block (PKCS#8, as written by
     * {@code openssl genpkey -algorithm ed25519}).
     *
     * @throws IllegalArgumentException with the reason when there is none
     */
    public static PrivateKey privateKeyFromPem(String pem) {
        try {
            return KeyFactory.getInstance(ALGORITHM)
                    .generatePrivate(new PKCS8EncodedKeySpec(pemBlock(pem, "PRIVATE KEY")));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not an Ed25519 private key (" + e.getMessage() + ")", e);
        }
    }

    /** The Ed25519 public key of a PEM "PUBLIC KEY" block. */
    public static PublicKey publicKeyFromPem(String pem) {
        try {
            return KeyFactory.getInstance(ALGORITHM)
                    .generatePublic(new X509EncodedKeySpec(pemBlock(pem, "PUBLIC KEY")));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not an Ed25519 public key (" + e.getMessage() + ")", e);
        }
    }

    /** The public key as a PEM "PUBLIC KEY" block. */
    public static String publicKeyPem(PublicKey key) {
        return "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(key.getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
    }

    private static byte[] pemBlock(String pem, String label) {
        Matcher m = Pattern.compile("-----BEGIN " + label + "-----([A-Za-z0-9+/=\\s]+)-----END " + label + "-----")
                .matcher(pem);
        if (!m.find()) {
            throw new IllegalArgumentException("no PEM \"" + label + "\" block (-----BEGIN " + label + "-----)");
        }
        try {
            return Base64.getMimeDecoder().decode(m.group(1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the PEM \"" + label + "\" block is not valid base64", e);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
