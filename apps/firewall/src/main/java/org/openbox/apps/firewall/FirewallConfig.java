package org.openbox.apps.firewall;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.openbox.api.AppSettings;
import org.openbox.api.Location;
import org.openbox.api.RuleText;

/**
 * The firewall's configuration (keys in apps/README.md).
 *
 * @param rulesFile      the rule file, or null for the packaged sample policy
 *                       (apps/demo/sample/firewall.rules)
 * @param ruleAction     the action of every ClassBench rule (ClassBench rules carry none)
 * @param defaultAction  the action for packets no rule matches; null keeps the policy's own
 *                       (the rule file's {@code default} line, or drop for ClassBench)
 * @param alertSeverity  severity 1..5 of the alerts of {@code alert} rules
 * @param allowEmpty     a rule file without rules (only the default action) is intended
 *                       (key {@code rules.allow_empty}); otherwise it is an error
 */
public record FirewallConfig(
        Location location,
        String inDevice,
        String outDevice,
        Path rulesFile,
        RuleFormat format,
        Action ruleAction,
        Action defaultAction,
        int alertSeverity,
        boolean allowEmpty) {

    /** Rule file formats. */
    public enum RuleFormat {
        /** the firewall's own format (see {@link FirewallRuleParser}) */
        FIREWALL,
        /** ClassBench filter sets (see {@link ClassBenchParser}) */
        CLASSBENCH
    }

    static final String SAMPLE_RULES = "sample/firewall.rules";
    static final Set<String> KEYS = Set.of(
            "location",
            "device.in",
            "device.out",
            "rules.file",
            "rules.format",
            "classbench.action",
            "default.action",
            "alert.severity",
            "rules.allow_empty");

    /** The configuration the application finds at run time (see {@link AppSettings#load}). */
    public static FirewallConfig load() {
        return from(AppSettings.load("firewall"));
    }

    /** Every key at its default: the sample policy between devices "in" and "out", everywhere. */
    public static FirewallConfig defaults() {
        return from(AppSettings.of(new java.util.Properties()));
    }

    static FirewallConfig from(AppSettings s) {
        s.requireKnown(KEYS);
        RuleFormat format =
                switch (s.get("rules.format", "firewall").toLowerCase()) {
                    case "firewall" -> RuleFormat.FIREWALL;
                    case "classbench" -> RuleFormat.CLASSBENCH;
                    default -> throw s.error(
                            "rules.format", "'" + s.get("rules.format", "") + "' is not firewall or classbench");
                };
        return new FirewallConfig(
                s.location(),
                s.get("device.in", "in"),
                s.get("device.out", "out"),
                s.getPath("rules.file").orElse(null),
                format,
                action(s, "classbench.action", Action.ALLOW),
                action(s, "default.action", null),
                s.getInt("alert.severity", 3, 1, 5),
                s.getBool("rules.allow_empty", false));
    }

    private static Action action(AppSettings s, String key, Action defaultValue) {
        try {
            return s.get(key).map(Action::parse).orElse(defaultValue);
        } catch (IllegalArgumentException e) {
            throw s.error(key, e.getMessage());
        }
    }

    /** How errors name the rules: the rule file's path, or the packaged sample's name. */
    public String rulesSource() {
        return rulesFile == null ? SAMPLE_RULES : rulesFile.toString();
    }

    /**
     * Reads and parses the rules; errors read {@code FILE:LINE: what is wrong}. A file that is
     * not text or holds no rule is an error.
     */
    public Policy policy() {
        String where = rulesSource();
        List<String> lines = RuleText.lines(readRules(), where, StandardCharsets.UTF_8);
        Policy p = format == RuleFormat.CLASSBENCH
                ? new ClassBenchParser().parse(where, lines, ruleAction, Action.DROP)
                : new FirewallRuleParser().parse(where, lines);
        if (p.rules().isEmpty() && !allowEmpty) {
            throw new IllegalArgumentException(where + ": no rules; set rules.allow_empty=true if a firewall"
                    + " with only its default action is intended");
        }
        if (defaultAction == null) {
            return p;
        }
        if (defaultAction == Action.ALERT) {
            throw new IllegalArgumentException("default.action: alert is not a default action (allow or drop)");
        }
        return new Policy(p.rules(), defaultAction);
    }

    private byte[] readRules() {
        try {
            if (rulesFile != null) {
                return Files.readAllBytes(rulesFile);
            }
            try (InputStream in = FirewallConfig.class.getResourceAsStream(SAMPLE_RULES)) {
                if (in == null) {
                    throw new IllegalStateException("the packaged sample rules " + SAMPLE_RULES + " are missing");
                }
                return in.readAllBytes();
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(rulesFile + ": cannot read the firewall rules: " + e.getMessage(), e);
        }
    }
}
