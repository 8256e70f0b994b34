package org.openbox.controller;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Hard limits on what OBIs and management clients can make the controller hold, prefix
 * {@code openbox.limits}. Input over a limit is refused with a protocol Error (southbound)
 * or a 4xx answer (management API); nothing already running is touched.
 *
 * @param maxBody largest request body; a larger Content-Length is answered 413 before the
 *        body is read, and a body without one is cut off once it passes the limit
 * @param maxJsonDepth deepest nesting of JSON arrays and objects in any request body
 * @param maxJsonString longest JSON string (a custom module's base64 content is one)
 * @param maxObis most OBI sessions kept; a Hello for a new dpid beyond it is refused
 * @param setupTimeout a session whose OBI never answered the controller's first request
 *        (its Hello did not lead to a working connection) is dropped after this long
 * @param downExpiry a session DOWN for this long is dropped (a later Hello starts a new one)
 */
@ConfigurationProperties(prefix = "openbox.limits")
public record LimitsProperties(
        @DefaultValue("64MB") DataSize maxBody,
        @DefaultValue("64") int maxJsonDepth,
        @DefaultValue("64MB") DataSize maxJsonString,
        @DefaultValue("4096") int maxObis,
        @DefaultValue("30s") Duration setupTimeout,
        @DefaultValue("1h") Duration downExpiry) {

    public LimitsProperties {
        if (maxBody.toBytes() <= 0 || maxJsonDepth <= 0 || maxJsonString.toBytes() <= 0 || maxObis <= 0) {
            throw new IllegalArgumentException("openbox.limits.* sizes and counts must be positive");
        }
        if (setupTimeout.isNegative() || setupTimeout.isZero() || downExpiry.isNegative() || downExpiry.isZero()) {
            throw new IllegalArgumentException("openbox.limits.setup-timeout and down-expiry must be positive");
        }
    }

    /** The default limits (as when nothing is configured). */
    public static LimitsProperties defaults() {
        return new LimitsProperties(DataSize.ofMegabytes(64), 64, DataSize.ofMegabytes(64), 4096,
                Duration.ofSeconds(30), Duration.ofHours(1));
    }
}
