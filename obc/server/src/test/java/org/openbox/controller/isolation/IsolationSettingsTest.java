package org.openbox.controller.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.FailureMode;

/** The operator's failure modes and no-application actions, and the state file. */
class IsolationSettingsTest {

    @TempDir
    Path dir;

    private IsolationProperties props(Map<String, String> modes, String noApp, Map<String, String> perObi) {
        return new IsolationProperties(modes, noApp, perObi, dir);
    }

    @Test
    void overridesWinOverWhatTheApplicationDeclares() {
        FailurePolicy p = new FailurePolicy(props(Map.of("firewall", "OPEN"), "drop", Map.of("7", "pass")));
        assertThat(p.modeOf("firewall", FailureMode.CLOSED)).isEqualTo(FailureMode.OPEN);
        assertThat(p.overridden("firewall")).isTrue();
        assertThat(p.modeOf("ips", FailureMode.CLOSED)).isEqualTo(FailureMode.CLOSED);
        assertThat(p.modeOf("cache", null)).isEqualTo(FailureMode.OPEN);
        assertThat(p.noAppAction(7)).isEqualTo(NoAppAction.PASS);
        assertThat(p.noAppAction(8)).isEqualTo(NoAppAction.DROP);
    }

    @Test
    void badValuesNameTheProperty() {
        assertThatThrownBy(() -> new FailurePolicy(props(Map.of("fw", "half"), "pass", Map.of())))
                .hasMessageContaining("openbox.failure-mode.fw")
                .hasMessageContaining("closed or open");
        assertThatThrownBy(() -> new FailurePolicy(props(Map.of(), "forward", Map.of())))
                .hasMessageContaining("openbox.no-app-action=forward");
        assertThatThrownBy(() -> new FailurePolicy(props(Map.of(), "pass", Map.of("obi7", "drop"))))
                .hasMessageContaining("openbox.no-app-action-per-obi.obi7");
    }

    @Test
    void theStateFileSurvivesAndABrokenOneIsIgnored() throws Exception {
        IsolationProperties p = props(Map.of(), "pass", Map.of());
        StateStore first = new StateStore(p);
        Instant t = Instant.parse("2026-01-02T03:04:05Z");
        first.put("fw", new StateStore.AppRecord(true, "closed", t));
        StateStore second = new StateStore(p);
        assertThat(second.get("fw")).isEqualTo(new StateStore.AppRecord(true, "closed", t));
        assertThat(second.get("ips")).isNull();

        Files.writeString(dir.resolve("controller-state.json"), "{ not json");
        assertThat(new StateStore(p).get("fw")).isNull();
    }
}
