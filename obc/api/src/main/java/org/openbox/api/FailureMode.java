package org.openbox.api;

import java.util.Locale;

/**
 * What an application's traffic gets whenever the application cannot run (it failed to
 * start, an OBI refused its graph, it is over a limit): {@link #CLOSED} drops the traffic
 * at the application's location (only its traffic class when it has one), {@link #OPEN}
 * lets it bypass the application. An application declares its default with
 * {@link Application#failureMode()}; the operator can override it per application.
 */
public enum FailureMode {
    /** The application's traffic is dropped while it cannot run (fail-safe: firewalls, IPSs). */
    CLOSED,
    /** The application's traffic bypasses it while it cannot run (e.g. a cache). */
    OPEN;

    /** {@code closed} or {@code open} (any case); throws naming the accepted values otherwise. */
    public static FailureMode parse(String text) {
        if (text != null) {
            switch (text.trim().toLowerCase(Locale.ROOT)) {
                case "closed":
                    return CLOSED;
                case "open":
                    return OPEN;
                default:
                    break;
            }
        }
        throw new IllegalArgumentException("failure mode '" + text + "' is not closed or open");
    }

    /** The lower-case name used in configuration and the management API. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
