package org.openbox.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.controller.apps.StartupRefusedException;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.web.server.PortInUseException;

/** A failed start is told in one line per problem, not a stack trace. */
class StartupFailureTest {

    @Test
    void refusedApplicationsOneLineEach() {
        Throwable t = new BeanCreationException(
                "appLifecycle",
                "init failed",
                new StartupRefusedException(List.of("fw.rules:3: unknown action 'dorp'", "app ips: x")));
        assertThat(ControllerApplication.StartupFailure.describe(t))
                .isEqualTo("fw.rules:3: unknown action 'dorp'\napp ips: x");
    }

    @Test
    void portInUse() {
        Throwable t = new IllegalStateException("web server", new PortInUseException(23700));
        assertThat(ControllerApplication.StartupFailure.describe(t))
                .isEqualTo("openbox controller: port 23700 is already in use");
    }

    @Test
    void aConfigurationErrorOfOursIsItsMessage() {
        Throwable t = new BeanCreationException(
                "topologyHolder",
                "failed",
                new IllegalArgumentException("openbox.topology: cannot read topology file t.json: no such file"));
        assertThat(ControllerApplication.StartupFailure.describe(t))
                .isEqualTo("openbox controller: openbox.topology: cannot read topology file t.json: no such file");
    }

    @Test
    void theOutermostOfOurMessagesWinsOnOneLine() {
        Throwable t = new BeanCreationException(
                "topologyHolder",
                "failed",
                new IllegalStateException(
                        "cannot read topology file t.json: bad segment\n at line 2",
                        new IllegalArgumentException("bad segment")));
        assertThat(ControllerApplication.StartupFailure.describe(t))
                .isEqualTo("openbox controller: cannot read topology file t.json: bad segment at line 2");
    }

    @Test
    void anythingElseKeepsItsStackTrace() {
        String out = ControllerApplication.StartupFailure.describe(new NullPointerException("boom"));
        assertThat(out).startsWith("openbox controller: start-up failed: java.lang.NullPointerException: boom\n");
        assertThat(out.lines().count()).isGreaterThan(2);
    }
}
