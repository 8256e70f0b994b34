package org.openbox.controller.events;

import java.time.Instant;

/**
 * Which alerts an operator asks for; every criterion that is null matches everything.
 *
 * @param app         the owning application ({@code (none)} for alerts without a known owner)
 * @param dpid        the OBI
 * @param minSeverity lowest severity (1..5)
 * @param block       the application's block or the merged block that raised it
 * @param text        a part of the message (case-insensitive)
 * @param rule        the application's rule behind the alert ({@link org.openbox.api.AlertRule#id()}:
 *                    the IPS's Snort sid, the firewall's rule number)
 * @param since       not before this time
 * @param until       not after this time
 */
public record AlertFilter(
        String app,
        Long dpid,
        Integer minSeverity,
        String block,
        String text,
        Long rule,
        Instant since,
        Instant until) {

    /** The application name that selects alerts without a known owner. */
    public static final String NO_APP = "(none)";
    /** Longest accepted text criterion. */
    public static final int MAX_TEXT = 256;

    public AlertFilter {
        app = blankToNull(app);
        block = blankToNull(block);
        text = blankToNull(text);
        if (minSeverity != null && (minSeverity < 1 || minSeverity > 5)) {
            throw new IllegalArgumentException("minSeverity must be 1..5, not " + minSeverity);
        }
        if (text != null && text.length() > MAX_TEXT) {
            throw new IllegalArgumentException("text is longer than " + MAX_TEXT + " characters");
        }
        if (since != null && until != null && until.isBefore(since)) {
            throw new IllegalArgumentException("until (" + until + ") is before since (" + since + ")");
        }
    }

    /** Everything. */
    public static AlertFilter all() {
        return new AlertFilter(null, null, null, null, null, null, null, null);
    }

    /** Alerts of one application only. */
    public static AlertFilter ofApp(String app) {
        return new AlertFilter(app, null, null, null, null, null, null, null);
    }

    public boolean matches(AlertRecord r) {
        return (app == null || (r.app() == null ? NO_APP.equals(app) : app.equals(r.app())))
                && (dpid == null || dpid == r.dpid())
                && (minSeverity == null || r.severity() >= minSeverity)
                && (block == null || block.equals(r.block()) || block.equals(r.mergedBlock()))
                && (text == null
                        || r.message() != null
                                && r.message()
                                        .toLowerCase(java.util.Locale.ROOT)
                                        .contains(text.toLowerCase(java.util.Locale.ROOT)))
                && (rule == null || r.rule() != null && r.rule().id() == rule)
                && (since == null || r.time() != null && !r.time().isBefore(since))
                && (until == null || r.time() != null && !r.time().isAfter(until));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
