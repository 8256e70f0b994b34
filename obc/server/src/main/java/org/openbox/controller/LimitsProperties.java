package org.openbox.controller;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
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
 * @param apps per-application limits on what an application's graphs may hold, checked before
 *        they are merged: {@code openbox.limits.apps.default.*} for every application,
 *        {@code openbox.limits.apps.NAME.*} for application NAME (see {@link AppLimits})
 */
@ConfigurationProperties(prefix = "openbox.limits")
public record LimitsProperties(
        @DefaultValue("64MB") DataSize maxBody,
        @DefaultValue("64") int maxJsonDepth,
        @DefaultValue("64MB") DataSize maxJsonString,
        @DefaultValue("4096") int maxObis,
        @DefaultValue("30s") Duration setupTimeout,
        @DefaultValue("1h") Duration downExpiry,
        Map<String, AppLimits> apps) {

    /** The name of the per-application entry that applies to every application. */
    public static final String DEFAULT_APP = "default";

    public LimitsProperties {
        if (maxBody.toBytes() <= 0 || maxJsonDepth <= 0 || maxJsonString.toBytes() <= 0 || maxObis <= 0) {
            throw new IllegalArgumentException("openbox.limits.* sizes and counts must be positive");
        }
        if (setupTimeout.isNegative() || setupTimeout.isZero() || downExpiry.isNegative() || downExpiry.isZero()) {
            throw new IllegalArgumentException("openbox.limits.setup-timeout and down-expiry must be positive");
        }
        apps = apps == null ? Map.of() : new TreeMap<>(apps);
        apps.forEach((app, l) -> l.check("openbox.limits.apps." + app + "."));
    }

    /** The default limits (as when nothing is configured). */
    public static LimitsProperties defaults() {
        return new LimitsProperties(
                DataSize.ofMegabytes(64),
                64,
                DataSize.ofMegabytes(64),
                4096,
                Duration.ofSeconds(30),
                Duration.ofHours(1),
                Map.of());
    }

    /**
     * Limits on one application's graphs; an unset one falls back to
     * {@code openbox.limits.apps.default.*}, then to the built-in default. An application over
     * one is refused with a message naming the property.
     *
     * @param maxRulesPerClassifier most rules (outputs) of any one classifier block
     *        (HeaderClassifier, HeaderPayloadClassifier, RegexClassifier, ...); built-in 100000
     * @param maxPatterns most payload patterns (regular expressions and literals the OBI
     *        compiles with Hyperscan) over all the application's graphs; built-in 20000
     * @param maxPatternBytes most bytes of those patterns together, a measure of the
     *        compiled pattern database's size; built-in 4MB
     * @param maxBlocksPerGraph most blocks in any one of the application's graphs; built-in 10000
     */
    public record AppLimits(
            Integer maxRulesPerClassifier, Integer maxPatterns, DataSize maxPatternBytes, Integer maxBlocksPerGraph) {

        /** The built-in defaults. */
        public static final AppLimits BUILT_IN = new AppLimits(100_000, 20_000, DataSize.ofMegabytes(4), 10_000);

        void check(String prefix) {
            requirePositive(prefix + "max-rules-per-classifier", maxRulesPerClassifier);
            requirePositive(prefix + "max-patterns", maxPatterns);
            requirePositive(prefix + "max-pattern-bytes", maxPatternBytes == null ? null : maxPatternBytes.toBytes());
            requirePositive(prefix + "max-blocks-per-graph", maxBlocksPerGraph);
        }

        private static void requirePositive(String name, Number value) {
            if (value != null && value.longValue() <= 0) {
                throw new IllegalArgumentException(name + " must be positive, not " + value);
            }
        }
    }
}
