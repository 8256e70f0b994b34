package org.openbox.controller.management;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The live alert stream (GET /api/alerts/stream), prefix {@code openbox.alert-stream}.
 *
 * @param maxClients most streams open at once; one more is answered 503
 * @param heartbeat  how often an idle stream gets a comment line (a closed client is noticed then)
 * @param timeout    how long one stream lasts; the browser's EventSource then reconnects by itself
 * @param queue      alerts waiting to be sent to one stream; a client that falls further behind is dropped
 */
@ConfigurationProperties(prefix = "openbox.alert-stream")
public record AlertStreamProperties(
        @DefaultValue("32") int maxClients,
        @DefaultValue("15s") Duration heartbeat,
        @DefaultValue("30m") Duration timeout,
        @DefaultValue("1000") int queue) {

    public AlertStreamProperties {
        if (maxClients < 1 || queue < 1) {
            throw new IllegalArgumentException("openbox.alert-stream.max-clients and .queue must be at least 1");
        }
        if (heartbeat.isNegative() || heartbeat.isZero() || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("openbox.alert-stream.heartbeat and .timeout must be positive");
        }
    }
}
