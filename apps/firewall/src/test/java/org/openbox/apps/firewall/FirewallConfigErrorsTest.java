package org.openbox.apps.firewall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.AppSettings;

/** What the firewall says about bad settings and rule files: the key, or the file's line. */
class FirewallConfigErrorsTest {

    @TempDir
    Path dir;

    private FirewallApp configured(String rules, Map<String, String> props) throws Exception {
        Path file = Files.writeString(dir.resolve("firewall.rules"), rules);
        Map<String, String> all = new java.util.HashMap<>(props);
        all.put("rules.file", file.toString());
        FirewallApp app = new FirewallApp();
        app.configure(AppSettings.load("firewall", null, all));
        return app;
    }

    private String error(String rules) {
        return assertThrows(IllegalArgumentException.class, () -> configured(rules, Map.of()))
                .getMessage();
    }

    @Test
    void aRuleTypoNamesTheFileLine() {
        String file = dir.resolve("firewall.rules").toString();
        assertEquals(
                file + ":3: unknown action 'dorp' (allow, drop, alert)",
                error("# policy\nallow dport 80\ndorp proto tcp dport 23\n"));
    }

    @Test
    void aBadAddressIsTheFilesLineNotAClassifierRow() {
        String body = "allow dport 80\n".repeat(12) + "drop src 10.300.0.1/8\n";
        String msg = error(body);
        assertTrue(msg.startsWith(dir.resolve("firewall.rules") + ":13: bad address '10.300.0.1/8'"), msg);
        assertTrue(error("drop dst 10.0.0.0/33\n").contains(":1: bad address '10.0.0.0/33'"));
    }

    @Test
    void binaryGarbageIsNotAnEmptyPolicy() {
        String msg = error("\u0000\u0013\u0007PK garbage");
        assertTrue(msg.startsWith(dir.resolve("firewall.rules") + ":1: not a text file"), msg);
    }

    @Test
    void noRulesIsAnErrorUnlessIntended() throws Exception {
        assertTrue(error("# nothing\ndefault drop\n").contains("no rules; set rules.allow_empty=true"));
        FirewallApp app = configured("default drop\n", Map.of("rules.allow_empty", "true"));
        assertEquals(1, app.statements().size());
    }

    @Test
    void aSettingsKeyTypoIsNamedWithTheKnownKeys() {
        FirewallApp app = new FirewallApp();
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> app.configure(AppSettings.load("firewall", null, Map.of("rules.fromat", "classbench"))));
        assertTrue(
                e.getMessage().startsWith("openbox.apps.firewall: unknown key 'rules.fromat' (known keys: "),
                e.getMessage());
        assertTrue(e.getMessage().contains("rules.format"), e.getMessage());
    }

    @Test
    void classifierRowsMapBackToRuleFileLines() throws Exception {
        FirewallApp app = configured("# header\nallow proto tcp dport 80\n\ndrop proto tcp dport 23\n", Map.of());
        app.statements();
        String file = dir.resolve("firewall.rules").toString();
        assertEquals(file + ":2", app.ruleOrigin(FirewallGraph.CLASSIFIER, 0).orElseThrow());
        assertEquals(file + ":4", app.ruleOrigin(FirewallGraph.CLASSIFIER, 1).orElseThrow());
        assertTrue(app.ruleOrigin(FirewallGraph.CLASSIFIER, 2).isEmpty(), "the default row has no line");
        assertTrue(app.ruleOrigin("other", 0).isEmpty());
    }

    @Test
    void classBenchPrefixesAreChecked() {
        String msg = assertThrows(IllegalArgumentException.class, () -> new ClassBenchParser()
                        .parse(
                                "cb",
                                java.util.List.of(
                                        "@1.2.3.4/32\t1.2.3.999/32\t0 : 65535\t0 : 65535\t0x06/0xFF\t0x0000/0x0000"),
                                Action.ALLOW,
                                Action.DROP))
                .getMessage();
        assertTrue(msg.startsWith("cb:1: not a ClassBench rule: bad prefix '1.2.3.999/32'"), msg);
    }
}
