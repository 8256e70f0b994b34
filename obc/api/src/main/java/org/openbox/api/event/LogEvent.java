package org.openbox.api.event;

import java.time.Instant;

/**
 * A log message from one of the application's Log blocks on an OBI.
 *
 * @param block  the application's own block name
 * @param packet the attached packet excerpt, or null when none was attached
 */
public record LogEvent(long dpid, String block, String message, int severity, byte[] packet, Instant time) {}
