package org.openbox.apps.ips;

import java.util.List;
import java.util.Map;

/**
 * One Snort 2.9 rule translated into what the IPS can install on an OBI: header matches
 * (several when the rule is bidirectional or names several protocols) and payload regexes
 * that must all match.
 *
 * @param line     1-based line of the rule in its file
 * @param action   the Snort action (alert, drop, reject, pass, log)
 * @param headers  header-match maps (field -> value in the OpenBox header-match grammar);
 *                 a packet matches the rule when it matches any of them
 * @param patterns payload regexes (matched on the L4 payload); all must match
 */
public record SnortRule(
        int line,
        String action,
        long sid,
        int rev,
        String msg,
        int priority,
        List<Map<String, String>> headers,
        List<String> patterns) {
    public SnortRule {
        headers = List.copyOf(headers);
        patterns = List.copyOf(patterns);
    }

    /** Whether the rule blocks the packet (inline IPS) besides alerting. */
    public boolean blocks() {
        return action.equals("drop") || action.equals("reject") || action.equals("sdrop");
    }
}
