package org.openbox.api;

/**
 * The application's own rule behind one of its alerting blocks, as an analyst refers to it:
 * a firewall's rule number, an IPS's Snort sid and revision.
 *
 * @param id      the rule's number in the application's terms (Snort sid; firewall rule line)
 * @param rev     the rule's revision (Snort rev), 0 when the application has none
 * @param message the rule's own message (Snort msg, the firewall rule's alert text)
 * @param origin  where the rule was written, {@code FILE:LINE}, or null when unknown
 */
public record AlertRule(long id, int rev, String message, String origin) {}
