package org.openbox.controller;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Controller settings, prefix {@code openbox}. Every one has a default, so the controller
 * starts without any configuration.
 *
 * @param keepaliveInterval interval the controller asks OBIs to send KeepAlive at
 *        (SetParametersRequest keepalive_interval, whole seconds, at least 1)
 * @param keepaliveTimeout an OBI that sent nothing for this long is down; default
 *        3 x keepaliveInterval when unset. It applies once the OBI has accepted
 *        keepaliveInterval; before that (from its Hello until its SetParametersResponse) the
 *        OBI sends at the spec's default interval, so it is held to
 *        {@link #keepaliveTimeoutBeforeSet()}
 * @param deadlineCheckInterval how often the single deadline sweeper runs
 * @param requestTimeout how long a down request waits for its answer message
 * @param appsDir directory of application jars (ServiceLoader of org.openbox.api.Application)
 * @param topology JSON topology file (segments of OBIs); none means a flat network
 * @param obiPort OBI REST port used when Hello carries no source_port
 * @param alertHistory number of recent alerts kept for GET /api/alerts
 * @param maxRules cross-product bound passed to the graph merger
 * @param mergeFold let the merger fold a classifier whose only rule matches every packet
 *        into its subtree (one lookup less per packet, but that rule's per-rule counts are
 *        then lost to the application); off by default so per-rule handles stay exact
 * @param autostart start every valid application at load
 * @param graphTimeout how long a SetProcessingGraphRequest waits for its answer: the OBI
 *        builds every block first, and compiling a large payload rule set takes seconds
 */
@ConfigurationProperties(prefix = "openbox")
public record OpenboxProperties(
        @DefaultValue("10s") Duration keepaliveInterval,
        Duration keepaliveTimeout,
        @DefaultValue("100ms") Duration deadlineCheckInterval,
        @DefaultValue("5s") Duration requestTimeout,
        Path appsDir,
        Path topology,
        @DefaultValue("3636") int obiPort,
        @DefaultValue("1000") int alertHistory,
        @DefaultValue("10000") int maxRules,
        @DefaultValue("false") boolean mergeFold,
        @DefaultValue("true") boolean autostart,
        @DefaultValue("60s") Duration graphTimeout) {

    public OpenboxProperties {
        if (keepaliveInterval.isNegative() || keepaliveInterval.isZero()) {
            throw new IllegalArgumentException("openbox.keepalive-interval must be positive");
        }
        if (keepaliveTimeout == null) {
            keepaliveTimeout = keepaliveInterval.multipliedBy(3);
        }
        if (graphTimeout == null) { // direct construction (tests)
            graphTimeout = Duration.ofSeconds(60);
        }
    }

    /** The spec's KeepAlive interval of an OBI that has not been sent another (spec 3.3). */
    public static final Duration DEFAULT_KEEPALIVE_INTERVAL = Duration.ofSeconds(10);

    /**
     * The deadline of an OBI that has not yet accepted keepaliveInterval: three of the spec's
     * default intervals, or keepaliveTimeout when that is longer.
     */
    public Duration keepaliveTimeoutBeforeSet() {
        Duration spec = DEFAULT_KEEPALIVE_INTERVAL.multipliedBy(3);
        return keepaliveTimeout.compareTo(spec) > 0 ? keepaliveTimeout : spec;
    }

    /** keepalive_interval as sent to OBIs: whole seconds, at least 1. */
    public long keepaliveIntervalSeconds() {
        return Math.max(1, keepaliveInterval.toSeconds());
    }
}
