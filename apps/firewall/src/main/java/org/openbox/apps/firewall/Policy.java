package org.openbox.apps.firewall;

import java.util.List;

/** An ordered rule list (first match wins) and the action for packets no rule matches. */
public record Policy(List<FirewallRule> rules, Action defaultAction) {
    public Policy {
        rules = List.copyOf(rules);
    }
}
