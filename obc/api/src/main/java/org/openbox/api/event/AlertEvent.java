package org.openbox.api.event;

import java.time.Instant;

/**
 * An alert raised by one of the application's Alert blocks on an OBI.
 *
 * @param block  the application's own block name (the controller maps merged blocks back)
 * @param packet the attached packet excerpt, or null when none was attached
 */
public record AlertEvent(long dpid, String block, String message, int severity, byte[] packet, Instant time) {}
