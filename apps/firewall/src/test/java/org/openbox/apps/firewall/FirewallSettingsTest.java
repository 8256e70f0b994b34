package org.openbox.apps.firewall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.AppSettings;

class FirewallSettingsTest {

    private static final String PROPERTY = "openbox.app.firewall.config";

    @AfterEach
    void clearProperty() {
        System.clearProperty(PROPERTY);
    }

    @Test
    void theSystemPropertyNamesTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fw.properties");
        Files.writeString(file, "device.out = eth9\nrules.file = rules/r.txt\n");
        System.setProperty(PROPERTY, file.toString());
        AppSettings s = AppSettings.load("firewall");
        assertEquals(file.toString(), s.source());
        FirewallConfig c = FirewallConfig.load();
        assertEquals("eth9", c.outDevice());
        assertEquals(dir.resolve("rules/r.txt"), c.rulesFile(), "relative to the file's directory");
    }

    @Test
    void listsAreCommaSeparatedAndBlankMeansUnset() {
        Properties p = new Properties();
        p.setProperty("list", " a, b,, c ");
        p.setProperty("blank", "  ");
        AppSettings s = AppSettings.of(p);
        assertEquals(List.of("a", "b", "c"), s.getList("list"));
        assertEquals("x", s.get("blank", "x"));
        assertEquals(List.of(), s.getList("missing"));
    }

    @Test
    void aMissingNamedFileIsAnError(@TempDir Path dir) {
        System.setProperty(PROPERTY, dir.resolve("nope.properties").toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AppSettings.load("firewall"));
        assertTrue(e.getMessage().contains(PROPERTY), e.getMessage());
    }

    @Test
    void withoutAFileEveryKeyTakesItsDefault() {
        // the working directory of the tests (the module) holds no firewall.properties
        AppSettings s = AppSettings.load("firewall");
        assertEquals("built-in defaults", s.source());
        FirewallConfig c = FirewallConfig.from(s);
        assertEquals("in", c.inDevice());
        assertEquals(null, c.rulesFile());
        assertTrue(c.policy().rules().size() > 0, "the packaged sample rules");
    }
}
