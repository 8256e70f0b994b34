package org.openbox.apps.ips;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.AppSettings;

/** Bad IPS input is an error naming the file and line, never a crash or an empty IPS. */
class IpsInputLimitsTest {

    @TempDir
    Path dir;

    private static final String RULE =
            "alert tcp $EXTERNAL_NET any -> $HOME_NET $HTTP_PORTS (msg:\"admin\"; content:\"/admin\"; sid:1001;)\n";

    private IpsApp configured(String rules, String vars, Map<String, String> extra) throws Exception {
        Map<String, String> props = new HashMap<>(extra);
        props.put(
                "rules.file", Files.writeString(dir.resolve("ips.rules"), rules).toString());
        if (vars != null) {
            props.put(
                    "variables.file",
                    Files.writeString(dir.resolve("vars.conf"), vars).toString());
        }
        IpsApp app = new IpsApp();
        app.configure(AppSettings.load("ips", null, props));
        return app;
    }

    private String error(String rules, String vars) {
        return assertThrows(IllegalArgumentException.class, () -> configured(rules, vars, Map.of()))
                .getMessage();
    }

    @Test
    void aVariableThatRefersToItselfIsAnErrorNotAStackOverflow() {
        assertEquals(
                dir.resolve("vars.conf") + ":2: variable A refers to itself (A -> A)",
                error(RULE, "# nets\nipvar A $A\n"));
        assertEquals(
                dir.resolve("vars.conf") + ":1: variable B refers to itself (B -> C -> B)",
                error(RULE, "ipvar B [$C,10.0.0.1]\nipvar C $B\n"));
    }

    @Test
    void exponentialDoublingIsBoundedBySize() {
        StringBuilder vars = new StringBuilder("ipvar V0 10.0.0.1\n");
        for (int i = 1; i <= 24; i++) {
            vars.append("ipvar V")
                    .append(i)
                    .append(" [$V")
                    .append(i - 1)
                    .append(",$V")
                    .append(i - 1)
                    .append("]\n");
        }
        String msg = error(RULE, vars.toString());
        assertTrue(msg.matches(".*vars\\.conf:\\d+: variable V\\d+ expands to more than 1048576 characters"), msg);
    }

    @Test
    void deepChainsAreBounded() {
        StringBuilder vars = new StringBuilder();
        for (int i = 40; i >= 1; i--) { // each defined before the one it names
            vars.append("portvar P").append(i).append(" $P").append(i - 1).append('\n');
        }
        vars.append("portvar P0 80\n");
        assertTrue(error(RULE, vars.toString()).contains("more than 32 references deep"));
    }

    @Test
    void binaryGarbageIsAnErrorNotAnIpsWithNoRules() {
        String msg = error("\u0089PNG\r\n\u001a\n\u0000\u0000garbage", null);
        assertTrue(msg.startsWith(dir.resolve("ips.rules") + ":2: not a text file (byte 0x1a"), msg);
    }

    @Test
    void noUsableRuleIsAnErrorUnlessIntended() throws Exception {
        String unusable = "alert tcp any any -> any any (msg:\"x\"; byte_test:4,>,1,0; sid:7;)\n";
        String msg = error(unusable, null);
        assertTrue(
                msg.startsWith(dir.resolve("ips.rules") + ": no rule the IPS can run (1 skipped; first, line 1:"), msg);
        IpsApp app = configured(unusable, null, Map.of("rules.allow_empty", "true"));
        assertEquals(List.of(), app.rulesRun());
    }

    @Test
    void nestedListsInARuleAreBounded() throws Exception {
        String deep = "[".repeat(100) + "80" + "]".repeat(100);
        IpsApp app =
                configured(RULE + "alert tcp any any -> any " + deep + " (msg:\"deep\"; sid:9;)\n", null, Map.of());
        assertEquals(1, app.rulesRun().size());
        assertTrue(
                app.skipped().get(0).reason().contains("nested more than 64 deep"),
                app.skipped().get(0).reason());
    }

    @Test
    void classifierRowsMapBackToRuleLines() throws Exception {
        IpsApp app = configured("# web\n\n" + RULE, "ipvar HOME_NET 10.0.0.0/8\n", Map.of());
        app.statements();
        assertEquals(
                dir.resolve("ips.rules") + ":3",
                app.ruleOrigin(IpsGraph.CLASSIFIER, 0).orElseThrow());
    }

    @Test
    void aPatternTheGraphRefusesNamesItsRuleLine() throws Exception {
        IpsApp app = configured(
                RULE + "\nalert tcp any any -> any 80 (msg:\"k\"; pcre:\"/a\\Kb/\"; sid:5;)\n", null, Map.of());
        String msg =
                assertThrows(IllegalArgumentException.class, app::statements).getMessage();
        assertTrue(msg.startsWith(dir.resolve("ips.rules") + ":3: block 'signatures'"), msg);
    }
}
