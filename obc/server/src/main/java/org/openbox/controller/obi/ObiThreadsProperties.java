package org.openbox.controller.obi;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Threads of the OBI side of the controller, prefix {@code openbox.obi-threads}.
 *
 * @param deadlineThreads threads of the scheduler that checks keep-alive deadlines (one sweep
 *        checks every OBI, so one thread serves thousands)
 * @param deploymentQueue most connection set-ups and graph deployments waiting for the
 *        deployment thread; more are refused and logged. Deployment runs on one thread so
 *        the pushes to an OBI stay in order.
 */
@ConfigurationProperties(prefix = "openbox.obi-threads")
public record ObiThreadsProperties(
        @DefaultValue("1") int deadlineThreads, @DefaultValue("100000") int deploymentQueue) {

    public ObiThreadsProperties {
        if (deadlineThreads < 1) {
            throw new IllegalArgumentException(
                    "openbox.obi-threads.deadline-threads must be at least 1, not " + deadlineThreads);
        }
        if (deploymentQueue < 1) {
            throw new IllegalArgumentException(
                    "openbox.obi-threads.deployment-queue must be at least 1, not " + deploymentQueue);
        }
    }
}
