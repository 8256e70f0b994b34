package org.openbox.controller.metrics;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationStyle;

/**
 * The data-plane metrics collector ({@link ObiMetricsCollector}), prefix {@code openbox.metrics}.
 *
 * @param interval how often every OBI that is up is asked for its GlobalStats and the
 *        counters of the applications' blocks (a duration such as {@code 10s}); {@code 0} or
 *        {@code off} turns collection off
 * @param timeout how long one OBI's collection may take; what has not answered by then is
 *        left out of that round
 * @param maxInFlight OBIs collected at the same time; the others of a round wait for a slot
 * @param maxRulesPerBlock per-rule counters are read for at most this many rules of one
 *        block whose rules are read one handle each ({@code count_i}); arrays are read whole
 * @param push ask each OBI to attach its figures to its KeepAlive every interval (the
 *        {@code metrics_subscription} extension), one SetParametersRequest per OBI and graph
 *        instead of a GlobalStats and the handle reads every round; an OBI that refuses the
 *        parameter is collected with GlobalStats and Read requests. {@code false}: always
 *        GlobalStats and Read
 */
@ConfigurationProperties(prefix = "openbox.metrics")
public record MetricsProperties(
        @DefaultValue("10s") String interval,
        @DefaultValue("5s") Duration timeout,
        @DefaultValue("32") int maxInFlight,
        @DefaultValue("256") int maxRulesPerBlock,
        @DefaultValue("true") boolean push) {

    public MetricsProperties {
        period(interval); // refuses a bad value at start-up, naming the property
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("openbox.metrics.timeout must be a positive duration");
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("openbox.metrics.max-in-flight must be at least 1");
        }
        if (maxRulesPerBlock < 0) {
            throw new IllegalArgumentException("openbox.metrics.max-rules-per-block must not be negative");
        }
    }

    /** The collection period; empty when collection is off. */
    public Optional<Duration> period() {
        return period(interval);
    }

    private static Optional<Duration> period(String interval) {
        String v = interval == null ? "" : interval.trim().toLowerCase(Locale.ROOT);
        if (v.equals("off") || v.equals("0") || v.equals("false")) {
            return Optional.empty();
        }
        Duration d;
        try {
            d = DurationStyle.detectAndParse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "openbox.metrics.interval '" + interval + "' is not a duration (e.g. 10s, 500ms) nor 0/off");
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException("openbox.metrics.interval must not be negative");
        }
        return d.isZero() ? Optional.empty() : Optional.of(d);
    }
}
