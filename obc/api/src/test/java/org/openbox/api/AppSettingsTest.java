package org.openbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings from a file and from the controller's openbox.apps.NAME.* properties. */
class AppSettingsTest {

    @TempDir
    Path dir;

    @Test
    void controllerPropertiesWinOverTheFileKeyByKey() throws Exception {
        Path file = Files.writeString(dir.resolve("fw.properties"), "device.in = eth0\ndevice.out = eth1\n");
        AppSettings s = AppSettings.load("fw", file.toString(), Map.of("device.out", "eth9", "rules.file", "r.rules"));
        assertEquals("eth0", s.get("device.in", ""));
        assertEquals("eth9", s.get("device.out", ""));
        assertEquals(file + " + openbox.apps.fw.*", s.source());
        assertEquals(
                Path.of("r.rules").toAbsolutePath(),
                s.getPath("rules.file").orElseThrow(),
                "a property's relative path resolves against the working directory");
    }

    @Test
    void aFileKeyResolvesAgainstTheFilesDirectory() throws Exception {
        Path file = Files.writeString(dir.resolve("fw.properties"), "rules.file = sub/r.rules\n");
        AppSettings s = AppSettings.load("fw", file.toString(), Map.of());
        assertEquals(dir.resolve("sub/r.rules"), s.getPath("rules.file").orElseThrow());
    }

    @Test
    void unknownKeysAreNamedWithWhereTheyWereGivenAndTheKnownKeys() throws Exception {
        Path file = Files.writeString(dir.resolve("fw.properties"), "rules.fromat = firewall\n");
        AppSettings s = AppSettings.load("fw", file.toString(), Map.of("colour", "red"));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> s.requireKnown(Set.of("rules.format", "rules.file")));
        assertEquals(
                "openbox.apps.fw: unknown key 'colour'; " + file + ": unknown key 'rules.fromat'"
                        + " (known keys: rules.file, rules.format)",
                e.getMessage());
        assertEquals(
                "openbox.apps.fw: inline: 'x' is not a boolean (true or false)",
                assertThrows(IllegalArgumentException.class, () -> AppSettings.load("fw", null, Map.of("inline", "x"))
                                .getBool("inline", true))
                        .getMessage());
    }

    @Test
    void noFileAndNoPropertiesIsEmpty() {
        AppSettings s = AppSettings.load("no-such-app-here", null, Map.of());
        assertTrue(s.isEmpty());
        assertEquals(AppSettings.NONE, s.source());
        assertFalse(AppSettings.load("no-such-app-here", null, Map.of("a", "b")).isEmpty());
    }

    @Test
    void aNamedFileThatIsMissingIsAnError() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> AppSettings.load("fw", dir.resolve("nope.properties").toString(), Map.of()));
        assertTrue(e.getMessage().startsWith("openbox.app.fw.config names "), e.getMessage());
    }

    @Test
    void ruleTextRefusesBinaryDataNamingTheLine() {
        byte[] data = "allow dport 80\n\u0001\u0002garbage\n".getBytes(StandardCharsets.ISO_8859_1);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> RuleText.lines(data, "fw.rules", StandardCharsets.UTF_8));
        assertEquals("fw.rules:2: not a text file (byte 0x01 at column 1)", e.getMessage());
        assertEquals(
                2,
                RuleText.lines("a\tb\r\nc\n".getBytes(StandardCharsets.UTF_8), "x", StandardCharsets.UTF_8)
                        .size());
    }
}
