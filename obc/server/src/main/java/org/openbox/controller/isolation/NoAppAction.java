package org.openbox.controller.isolation;

import java.util.Locale;

/** What an OBI with no application to run does with its traffic. */
public enum NoAppAction {
    /** Input devices forwarded to the output device, unchanged. */
    PASS,
    /** Everything dropped (counted by a Discard block). */
    DROP;

    static NoAppAction parse(String key, String text) {
        return switch (text == null ? "" : text.trim().toLowerCase(Locale.ROOT)) {
            case "pass" -> PASS;
            case "drop" -> DROP;
            default -> throw new IllegalArgumentException(key + "=" + text + ": expected pass or drop");
        };
    }
}
