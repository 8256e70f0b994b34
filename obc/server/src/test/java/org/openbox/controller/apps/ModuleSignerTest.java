package org.openbox.controller.apps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.CustomModule;
import org.openbox.protocol.ModuleSigning;

/**
 * The controller's module signer against the shared test vector
 * (protocol/vectors/module-signature/ed25519.json), whose signature the OBI's verifier accepts
 * in its own tests: the signer must produce it byte for byte from the vector's key.
 */
class ModuleSignerTest {

    private static final Path VECTORS = Path.of("../../protocol/vectors/module-signature");

    private static JsonNode vector() throws Exception {
        return new ObjectMapper().readTree(VECTORS.resolve("ed25519.json").toFile());
    }

    private static CustomModule module(String name, String version, byte[] content) throws Exception {
        return new CustomModule(
                name,
                version,
                content,
                List.of(
                        new ObjectMapper()
                                .readTree(
                                        "{\"name\": \"VectorBlock\", \"class\": \"static\", \"spec\": \"extension\", \"description\": \"x\","
                                                + " \"config\": [], \"read_handles\": [], \"write_handles\": [], \"inputs\": 1, \"outputs\": 1}")));
    }

    @Test
    void signsTheVectorModuleToTheVectorSignature() throws Exception {
        JsonNode v = vector();
        ModuleSigner signer = new ModuleSigner(
                new ModuleSigningProperties(VECTORS.resolve("test-signing.key").toString()));
        assertThat(signer.configured()).isTrue();
        assertThat(signer.keyId()).isEqualTo(v.get("key_id").asText());
        assertThat(ModuleSigning.publicKeyPem(signer.publicKey()))
                .isEqualTo(Files.readString(VECTORS.resolve("test-signing.pub")));

        byte[] content = Base64.getDecoder().decode(v.get("module_content").asText());
        ModuleSigner.SignedModule s = signer.sign(
                module(v.get("module_name").asText(), v.get("module_version").asText(), content));
        assertThat(s.signature()).isEqualTo(v.get("signature").asText());
        assertThat(s.keyId()).isEqualTo(v.get("key_id").asText());
        assertThat(s.version()).isEqualTo(v.get("module_version").asText());
        // another version of the same bytes is another signature
        assertThat(signer.sign(module(v.get("module_name").asText(), "1.2.1", content))
                        .signature())
                .isNotEqualTo(v.get("signature").asText());
    }

    @Test
    void withoutAKeyNothingIsSignedAndTheReasonSaysWhatToSet() throws Exception {
        ModuleSigner signer = new ModuleSigner(new ModuleSigningProperties(null));
        assertThat(signer.configured()).isFalse();
        assertThatThrownBy(() -> signer.sign(module("m", "1", new byte[] {1})))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("custom module 'm' cannot be signed")
                .hasMessageContaining("openbox.modules.signing-key");
    }

    @Test
    void anUnusableKeyFileStopsStartUpNamingTheFile(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("none.key");
        assertThatThrownBy(() -> new ModuleSigner(new ModuleSigningProperties(missing.toString())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("openbox.modules.signing-key " + missing + ": ");
        Path pub = VECTORS.resolve("test-signing.pub"); // a public key is not a signing key
        assertThatThrownBy(() -> new ModuleSigner(new ModuleSigningProperties(pub.toString())))
                .hasMessageContaining("no PEM \"PRIVATE KEY\" block");
        Path ec = dir.resolve("ec.key"); // a P-256 key is not an Ed25519 key
        Files.writeString(
                ec,
                "-----BEGIN PRIVATE KEY-----\n"
                        + "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/JcXN8Y12HSMneTi\n"
                        + "K+psaLAj3YVuGwtoAZjSomfPhIChRANCAASCfRIZUbCS7SBRRMP5Q8K50t+Ep0E2\n"
                        + "bGPVK0c9/t6/PDbfUbIQbe2jfhVk1Pnsfsa22MkmkyPqgCOEIRrtqff5\n"
                        + "-----END PRIVATE KEY-----\n");
        assertThatThrownBy(() -> new ModuleSigner(new ModuleSigningProperties(ec.toString())))
                .hasMessageContaining("not an Ed25519 private key");
    }
}
