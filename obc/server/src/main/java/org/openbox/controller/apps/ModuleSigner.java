package org.openbox.controller.apps;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.interfaces.EdECPrivateKey;
import java.security.spec.NamedParameterSpec;
import java.util.Arrays;
import java.util.Base64;
import org.openbox.api.CustomModule;
import org.openbox.protocol.ModuleSigning;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Signs custom modules with the controller's Ed25519 key ({@code openbox.modules.signing-key}):
 * the signature covers the module's bytes, name and version ({@link ModuleSigning}) and
 * travels in AddCustomModuleRequest with the key's id. Without a configured key nothing is
 * signed and {@link #sign} refuses; a key file that cannot be used stops the controller at
 * start-up with the file and the reason.
 */
@Component
public class ModuleSigner {

    /** Why modules cannot be installed when no key is configured. */
    public static final String NOT_CONFIGURED = "no module signing key is configured: set openbox.modules.signing-key"
            + " to an Ed25519 private key in PEM (openssl genpkey -algorithm ed25519 -out FILE; ./openbox controller"
            + " creates build/pki/module-signing.key) and give OBIs its public key with --module-trust";

    private static final long MAX_KEY_FILE_BYTES = 64 * 1024;
    private static final Logger log = LoggerFactory.getLogger(ModuleSigner.class);

    /** What AddCustomModuleRequest carries for a signed module. */
    public record SignedModule(String version, String signature, String keyId) {}

    private final PrivateKey key;
    private final PublicKey publicKey;
    private final String keyId;

    public ModuleSigner(ModuleSigningProperties properties) {
        Path file = properties.signingKeyFile();
        if (file == null) {
            key = null;
            publicKey = null;
            keyId = null;
            log.info(
                    "custom modules: no signing key (openbox.modules.signing-key); applications with modules are refused");
            return;
        }
        try {
            if (!Files.isRegularFile(file) || Files.size(file) > MAX_KEY_FILE_BYTES) {
                throw new IllegalArgumentException("not a key file (missing, a directory, or over 64 KiB)");
            }
            key = ModuleSigning.privateKeyFromPem(Files.readString(file, StandardCharsets.US_ASCII));
            publicKey = publicKeyOf(key);
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw new IllegalStateException("openbox.modules.signing-key " + file + ": " + e.getMessage(), e);
        }
        keyId = ModuleSigning.keyId(publicKey);
        log.info("custom modules are signed with {} (key id {})", file, keyId);
    }

    /** True when a signing key is configured. */
    public boolean configured() {
        return key != null;
    }

    /** The id of the signing key (OBIs trust it by its public key), or null when none is configured. */
    public String keyId() {
        return keyId;
    }

    /** The public key matching the signing key, or null when none is configured. */
    public PublicKey publicKey() {
        return publicKey;
    }

    /** Signs the module's bytes, name and version. @throws IllegalStateException when no key is configured */
    public SignedModule sign(CustomModule module) {
        if (key == null) {
            throw new IllegalStateException(
                    "custom module '" + module.name() + "' cannot be signed: " + NOT_CONFIGURED);
        }
        byte[] input = ModuleSigning.signingInput(module.name(), module.version(), module.content());
        return new SignedModule(module.version(), Base64.getEncoder().encodeToString(sign(key, input)), keyId);
    }

    private static byte[] sign(PrivateKey key, byte[] input) {
        try {
            Signature s = Signature.getInstance(ModuleSigning.ALGORITHM);
            s.initSign(key);
            s.update(input);
            return s.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 signing failed: " + e.getMessage(), e);
        }
    }

    /**
     * The public half of an Ed25519 private key. The JDK has no call for it, but its key pair
     * generator derives the public key from the 32 random bytes it draws as the private key:
     * handed the private key's own bytes, it rebuilds the pair. The result is checked (same
     * private bytes, and a signature that verifies) before it is used.
     */
    static PublicKey publicKeyOf(PrivateKey key) throws GeneralSecurityException {
        if (!(key instanceof EdECPrivateKey ed) || ed.getBytes().isEmpty()) {
            throw new IllegalArgumentException("not an Ed25519 private key");
        }
        byte[] seed = ed.getBytes().get();
        KeyPairGenerator generator = KeyPairGenerator.getInstance(ModuleSigning.ALGORITHM);
        generator.initialize(NamedParameterSpec.ED25519, new SecureRandom() {
            @Override
            public void nextBytes(byte[] bytes) {
                if (bytes.length != seed.length) {
                    throw new IllegalStateException("unexpected Ed25519 key generation");
                }
                System.arraycopy(seed, 0, bytes, 0, seed.length);
            }
        });
        KeyPair pair = generator.generateKeyPair();
        byte[] probe = "openbox module signing key check".getBytes(StandardCharsets.US_ASCII);
        Signature verify = Signature.getInstance(ModuleSigning.ALGORITHM);
        verify.initVerify(pair.getPublic());
        verify.update(probe);
        if (!Arrays.equals(((EdECPrivateKey) pair.getPrivate()).getBytes().orElse(null), seed)
                || !verify.verify(sign(key, probe))) {
            throw new IllegalStateException("the public key of the Ed25519 signing key cannot be derived");
        }
        return pair.getPublic();
    }
}
