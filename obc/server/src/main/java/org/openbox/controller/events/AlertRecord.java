package org.openbox.controller.events;

import java.time.Instant;

/**
 * One alert as the operator sees it: owning application and its own block (null when the
 * merged block has no known owner), OBI, merged block, message and severity.
 */
public record AlertRecord(Instant time, String app, long dpid, String block, String mergedBlock,
                          String message, int severity) {}
