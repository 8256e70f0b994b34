package org.openbox.apps.firewall;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openbox.api.AlertRule;
import org.openbox.api.AppSettings;
import org.openbox.api.Application;
import org.openbox.api.FailureMode;
import org.openbox.api.Priority;
import org.openbox.api.Statement;
import org.openbox.api.event.AlertEvent;

/**
 * The firewall application ("firewall", priority high): an ordered rule list, first match
 * wins, each rule allows, drops or alerts on (and forwards) the packets it matches. The
 * graph is described in {@link FirewallGraph}; configuration in {@link FirewallConfig}.
 * Alerts of alert rules are counted per rule block and kept as log lines ({@link #alertCounts()},
 * {@link #alertLines()}).
 */
public class FirewallApp extends Application {

    private static final Logger LOG = System.getLogger(FirewallApp.class.getName());
    private static final int ALERT_LINES = 1000;
    private static final Pattern CLASSIFIER_RULE =
            Pattern.compile("block '" + FirewallGraph.CLASSIFIER + "'.*?\\brule (\\d{1,9})\\b");

    private final AlertLog alerts = new AlertLog(ALERT_LINES);
    private FirewallConfig config;
    private Policy policy;

    /**
     * The firewall as the controller loads it: configured by {@link #configure}, or from its
     * properties file (see {@link FirewallConfig#load()}) when used without a controller.
     */
    public FirewallApp() {}

    public FirewallApp(FirewallConfig config) {
        this.config = config;
    }

    @Override
    public Set<String> settingKeys() {
        return FirewallConfig.KEYS;
    }

    /** Reads the settings and parses the rule file; errors name the key or the file:line. */
    @Override
    public synchronized void configure(AppSettings settings) {
        FirewallConfig c = FirewallConfig.from(settings);
        Policy p = c.policy();
        config = c;
        policy = p;
    }

    @Override
    public String name() {
        return "firewall";
    }

    /** Closed: a firewall that fails must not let traffic through unchecked (the operator may override it). */
    @Override
    public FailureMode failureMode() {
        return FailureMode.CLOSED;
    }

    @Override
    public int priority() {
        return Priority.HIGH;
    }

    public synchronized FirewallConfig config() {
        if (config == null) {
            config = FirewallConfig.load();
        }
        return config;
    }

    private synchronized Policy policy() {
        if (policy == null) {
            policy = config().policy();
        }
        return policy;
    }

    @Override
    public synchronized List<Statement> statements() {
        Policy p = policy();
        FirewallGraph g;
        try {
            g = FirewallGraph.build(p, config());
        } catch (RuntimeException e) {
            Matcher m = CLASSIFIER_RULE.matcher(String.valueOf(e.getMessage()));
            Optional<String> origin =
                    m.find() ? ruleOrigin(FirewallGraph.CLASSIFIER, Integer.parseInt(m.group(1))) : Optional.empty();
            throw origin.isPresent() ? new IllegalArgumentException(origin.get() + ": " + e.getMessage(), e) : e;
        }
        LOG.log(
                Level.INFO,
                "firewall: {0} rules, {1} classifier rows, default {2}, at {3}",
                String.valueOf(p.rules().size()),
                String.valueOf(g.rows()),
                p.defaultAction(),
                config().location());
        return List.of(new Statement(config().location(), g.graph()));
    }

    /** Row {@code rule} of the classifier: the rule file line of the rule it belongs to. */
    @Override
    public synchronized Optional<String> ruleOrigin(String block, int rule) {
        if (!FirewallGraph.CLASSIFIER.equals(block) || rule < 0) {
            return Optional.empty();
        }
        int row = 0;
        for (FirewallRule r : policy().rules()) { // rows in rule order, one per header match
            row += r.matches().size();
            if (rule < row) {
                return Optional.of(config().rulesSource() + ":" + r.line());
            }
        }
        return Optional.empty();
    }

    /**
     * Block "alert-N" alerts for rule N (its position in the policy): the rule's line (in a
     * ClassBench file, its rule number) and message.
     */
    @Override
    public Optional<AlertRule> alertRule(String block) {
        if (block == null || !block.startsWith(FirewallGraph.ALERT_PREFIX)) {
            return Optional.empty();
        }
        int index;
        try {
            index = Integer.parseInt(block.substring(FirewallGraph.ALERT_PREFIX.length()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        List<FirewallRule> rules = policy().rules();
        if (index < 0
                || index >= rules.size()
                || rules.get(index).index() != index
                || rules.get(index).action() != Action.ALERT) {
            return Optional.empty();
        }
        FirewallRule r = rules.get(index);
        return Optional.of(new AlertRule(r.line(), 0, r.message(), config().rulesSource() + ":" + r.line()));
    }

    @Override
    public void onAlert(AlertEvent e) {
        String line = alerts.add(e);
        LOG.log(Level.DEBUG, "firewall alert: {0}", line);
    }

    /** Alerts received per Alert block ("alert-N" for rule N). */
    public Map<String, Long> alertCounts() {
        return alerts.counts();
    }

    /** The most recent alerts (at most 1000), oldest first. */
    public List<String> alertLines() {
        return alerts.lines();
    }
}
