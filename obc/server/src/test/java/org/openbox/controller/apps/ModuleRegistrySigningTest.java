package org.openbox.controller.apps;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.api.CustomModule;
import org.openbox.catalogue.Catalogue;

/** An application that brings a custom module is refused when the controller has no signing key. */
class ModuleRegistrySigningTest {

    private static final String KEY = "../../protocol/vectors/module-signature/test-signing.key";

    private static CustomModule module() throws Exception {
        return new CustomModule(
                "counter",
                "\u007fELF bytes".getBytes(StandardCharsets.UTF_8),
                List.of(new ObjectMapper()
                        .readTree("{\"name\": \"KeyTestCounter\", \"class\": \"static\", \"spec\": \"extension\","
                                + " \"description\": \"x\", \"config\": [], \"read_handles\": [], \"write_handles\": [],"
                                + " \"inputs\": 1, \"outputs\": 1}")));
    }

    @Test
    void withoutASigningKeyAnApplicationsModulesAreRefusedWithWhatToSet() throws Exception {
        ModuleRegistry registry = new ModuleRegistry(
                Catalogue.load(), new AppCatalog(), new ModuleSigner(new ModuleSigningProperties(null)));
        List<String> problems = registry.conflicts("app", List.of(module()));
        assertThat(problems).hasSize(1);
        assertThat(problems.get(0))
                .contains("custom module(s) [counter] cannot be installed on OBIs")
                .contains("openbox.modules.signing-key");
        // an application without modules needs no key
        assertThat(registry.conflicts("plain", List.of())).isEmpty();
    }

    @Test
    void withASigningKeyTheModuleIsAcceptedAndSigned() throws Exception {
        ModuleRegistry registry = new ModuleRegistry(
                Catalogue.load(), new AppCatalog(), new ModuleSigner(new ModuleSigningProperties(KEY)));
        assertThat(registry.conflicts("app", List.of(module()))).isEmpty();
        ModuleSigner.SignedModule s = registry.signed(module());
        assertThat(s.version()).isEqualTo(CustomModule.DEFAULT_VERSION);
        assertThat(s.keyId()).isEqualTo("49359d6a3720582c");
        assertThat(java.util.Base64.getDecoder().decode(s.signature())).hasSize(64);
    }
}
