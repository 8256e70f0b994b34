package org.openbox.protocol.message;

/** One alert of an {@link Alert}; packet (base64 excerpt), origin_block and app_id are optional. */
public record AlertEntry(long id, double timestamp, String message, int severity, String packet,
                         String originBlock, String appId) {}
