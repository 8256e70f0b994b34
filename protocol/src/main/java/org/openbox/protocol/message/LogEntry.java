package org.openbox.protocol.message;

/** One log message of a {@link Log}; packet (base64 excerpt) and origin_block are optional. */
public record LogEntry(long id, double timestamp, String message, int severity, String packet, String originBlock) {}
