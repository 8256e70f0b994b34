package org.openbox.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.message.AddCustomModuleRequest;

/**
 * The module signature test vector (protocol/vectors/module-signature/ed25519.json), checked
 * with java.security's Ed25519: the same vector the OBI's verifier is tested with in C++.
 */
class ModuleSignatureVectorTest {

    private static final Path DIR = Vectors.protocol().resolve("vectors/module-signature");

    private static JsonNode vector() throws Exception {
        return Vectors.MAPPER.readTree(DIR.resolve("ed25519.json").toFile());
    }

    private static String read(JsonNode v, String field) throws Exception {
        return Files.readString(DIR.resolve(v.get(field).asText()), StandardCharsets.US_ASCII);
    }

    private static boolean verifies(PublicKey key, byte[] input, byte[] signature) throws Exception {
        Signature s = Signature.getInstance(ModuleSigning.ALGORITHM);
        s.initVerify(key);
        s.update(input);
        return s.verify(signature);
    }

    @Test
    void signingInputKeyIdAndSignatureMatchTheVector() throws Exception {
        JsonNode v = vector();
        byte[] content = Base64.getDecoder().decode(v.get("module_content").asText());
        byte[] input = ModuleSigning.signingInput(
                v.get("module_name").asText(), v.get("module_version").asText(), content);
        assertEquals(v.get("signing_input_hex").asText(), HexFormat.of().formatHex(input));

        PublicKey pub = ModuleSigning.publicKeyFromPem(read(v, "public_key"));
        assertEquals(v.get("key_id").asText(), ModuleSigning.keyId(pub));
        assertEquals(
                v.get("untrusted_key_id").asText(),
                ModuleSigning.keyId(ModuleSigning.publicKeyFromPem(read(v, "untrusted_public_key"))));

        // Ed25519 is deterministic: the test key signs the input to exactly the vector's signature
        PrivateKey key = ModuleSigning.privateKeyFromPem(read(v, "private_key"));
        Signature s = Signature.getInstance(ModuleSigning.ALGORITHM);
        s.initSign(key);
        s.update(input);
        byte[] signature = s.sign();
        assertEquals(v.get("signature").asText(), Base64.getEncoder().encodeToString(signature));
        assertTrue(verifies(pub, input, signature));
    }

    @Test
    void changedBytesNameOrVersionDoNotVerify() throws Exception {
        JsonNode v = vector();
        byte[] content = Base64.getDecoder().decode(v.get("module_content").asText());
        byte[] signature = Base64.getDecoder().decode(v.get("signature").asText());
        PublicKey pub = ModuleSigning.publicKeyFromPem(read(v, "public_key"));
        String name = v.get("module_name").asText();
        String version = v.get("module_version").asText();
        byte[] tampered = content.clone();
        tampered[3] ^= 1;
        assertFalse(verifies(pub, ModuleSigning.signingInput(name, version, tampered), signature));
        assertFalse(verifies(pub, ModuleSigning.signingInput(name + "x", version, content), signature));
        assertFalse(verifies(pub, ModuleSigning.signingInput(name, "1.2.1", content), signature));
        assertFalse(verifies(
                ModuleSigning.publicKeyFromPem(read(v, "untrusted_public_key")),
                ModuleSigning.signingInput(name, version, content),
                signature));
        // the separators make the split of name and version unambiguous
        assertFalse(Arrays.equals(
                ModuleSigning.signingInput("ab", "c", content), ModuleSigning.signingInput("a", "bc", content)));
    }

    @Test
    void badInputIsRefusedWithAReason() {
        assertThrows(IllegalArgumentException.class, () -> ModuleSigning.signingInput("a\0b", "1", new byte[0]));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> ModuleSigning.privateKeyFromPem("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"));
        assertTrue(e.getMessage().contains("no PEM \"PRIVATE KEY\" block"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ModuleSigning.keyId(new byte[31]));
    }

    @Test
    void signedRequestRoundTripsThroughTheCodec() throws Exception {
        JsonNode v = vector();
        MessageCodec codec = new MessageCodec();
        AddCustomModuleRequest r = new AddCustomModuleRequest(
                7,
                "sampler",
                v.get("module_content").asText(),
                "application/octet-stream",
                "base64",
                null,
                "1.2.0",
                v.get("signature").asText(),
                v.get("key_id").asText());
        JsonNode wire = Vectors.MAPPER.readTree(codec.encode(r));
        assertEquals("1.2.0", wire.get("module_version").asText());
        assertEquals(v.get("key_id").asText(), wire.get("key_id").asText());
        assertEquals(r, codec.decode(Vectors.MAPPER.writeValueAsBytes(wire)));
    }
}
