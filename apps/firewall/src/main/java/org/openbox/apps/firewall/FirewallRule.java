package org.openbox.apps.firewall;

import java.util.List;
import java.util.Map;

/**
 * One firewall rule as header matches (field -> value in the OpenBox header-match grammar).
 * A packet matches the rule when it matches any of the maps: a rule on "any protocol" with
 * ports becomes one map for TCP, one for UDP and one for the other protocols, whose
 * packets have no ports to compare.
 *
 * @param index   position in the policy (0 = highest priority)
 * @param line    1-based source line
 * @param message text for alerts; the rule's source line when none is given
 */
public record FirewallRule(int index, int line, Action action, List<Map<String, String>> matches, String message) {
    public FirewallRule {
        matches = List.copyOf(matches);
    }
}
