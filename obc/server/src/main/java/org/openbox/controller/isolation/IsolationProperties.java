package org.openbox.controller.isolation;

import java.nio.file.Path;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * What traffic gets when applications cannot run, and where the controller keeps its state.
 *
 * @param failureMode application name -> {@code closed|open}, overriding the mode the
 *        application declares ({@code openbox.failure-mode.firewall=open})
 * @param noAppAction what an OBI with no application to run does with its traffic:
 *        {@code pass} (input devices to the output device) or {@code drop}
 * @param noAppActionPerObi the same per OBI: dpid -> {@code pass|drop}
 *        ({@code openbox.no-app-action-per-obi.7=drop})
 * @param stateDir directory of the controller's state file; default {@code .openbox} in the
 *        working directory
 */
@ConfigurationProperties(prefix = "openbox")
public record IsolationProperties(
        Map<String, String> failureMode,
        @DefaultValue("pass") String noAppAction,
        Map<String, String> noAppActionPerObi,
        Path stateDir) {

    public IsolationProperties {
        failureMode = failureMode == null ? Map.of() : Map.copyOf(failureMode);
        noAppActionPerObi = noAppActionPerObi == null ? Map.of() : Map.copyOf(noAppActionPerObi);
        stateDir = stateDir == null ? Path.of(".openbox") : stateDir;
    }
}
