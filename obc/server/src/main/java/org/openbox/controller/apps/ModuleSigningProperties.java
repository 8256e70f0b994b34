package org.openbox.controller.apps;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The controller's custom-module signing key, prefix {@code openbox.modules}.
 *
 * @param signingKey PEM file of an Ed25519 private key ({@code openssl genpkey -algorithm ed25519});
 *        every custom module is signed with it before it is sent to an OBI, and OBIs load only
 *        modules signed by a key in their {@code --module-trust}. Unset: applications that bring
 *        custom modules are refused ({@code ./openbox controller} creates build/pki/module-signing.key).
 */
@ConfigurationProperties(prefix = "openbox.modules")
public record ModuleSigningProperties(String signingKey) {

    /** The key file, or null when none is configured (unset or blank). */
    public Path signingKeyFile() {
        return signingKey == null || signingKey.isBlank() ? null : Path.of(signingKey);
    }
}
