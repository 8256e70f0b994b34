package org.openbox.apps.firewall;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
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

    private final FirewallConfig config;
    private final AlertLog alerts = new AlertLog(ALERT_LINES);

    /** The firewall configured from its properties file (see {@link FirewallConfig#load()}). */
    public FirewallApp() {
        this(FirewallConfig.load());
    }

    public FirewallApp(FirewallConfig config) {
        this.config = config;
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

    public FirewallConfig config() {
        return config;
    }

    @Override
    public List<Statement> statements() {
        Policy policy = config.policy();
        FirewallGraph g = FirewallGraph.build(policy, config);
        LOG.log(Level.INFO, "firewall: {0} rules, {1} classifier rows, default {2}, at {3}",
                String.valueOf(policy.rules().size()), String.valueOf(g.rows()), policy.defaultAction(), config.location());
        return List.of(new Statement(config.location(), g.graph()));
    }

    @Override
    public void onAlert(AlertEvent e) {
        LOG.log(Level.INFO, "firewall alert: {0}", alerts.add(e));
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
