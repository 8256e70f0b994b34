package org.openbox.apps.firewall;

/** What the firewall does with a packet that matches a rule. */
public enum Action {
    /** forward the packet */
    ALLOW,
    /** drop the packet */
    DROP,
    /** forward the packet and send an alert to the firewall application */
    ALERT;

    static Action parse(String word) {
        return switch (word.toLowerCase()) {
            case "allow", "accept", "pass" -> ALLOW;
            case "drop", "deny", "block" -> DROP;
            case "alert" -> ALERT;
            default -> throw new IllegalArgumentException("unknown action '" + word + "' (allow, drop, alert)");
        };
    }
}
