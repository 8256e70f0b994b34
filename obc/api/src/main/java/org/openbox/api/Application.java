package org.openbox.api;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.openbox.api.event.AlertEvent;
import org.openbox.api.event.ErrorEvent;
import org.openbox.api.event.InstanceEvent;
import org.openbox.api.event.LogEvent;

/**
 * An OpenBox application (network function): a name, a priority and statements saying which
 * processing graph runs where. The controller finds applications with
 * {@link java.util.ServiceLoader} (META-INF/services/org.openbox.api.Application), so a
 * subclass needs a public no-argument constructor.
 *
 * <p>After deployment the application is event driven: override the {@code on...} hooks to
 * react to alerts, logs, OBIs coming up or going down and errors. Hooks run on a controller
 * thread and must not block for long.
 */
public abstract class Application {

    /** Unique application name; it appears in alerts and in the management API. */
    public abstract String name();

    /**
     * Priority when graphs are chained on one OBI: higher runs first. See {@link Priority}
     * for the named levels; the default is {@link Priority#MEDIUM}.
     */
    public int priority() {
        return Priority.MEDIUM;
    }

    /**
     * What the application's traffic gets while the application cannot run (refused, failed
     * on an OBI, over a limit): {@link FailureMode#OPEN} (bypass) by default. Security
     * functions that must never let traffic through unchecked return {@link FailureMode#CLOSED}.
     * The operator can override it ({@code openbox.failure-mode.<name>=closed|open}).
     */
    public FailureMode failureMode() {
        return FailureMode.OPEN;
    }

    /**
     * The setting keys the application understands ({@link AppSettings}); none by default.
     * The controller rejects an application given a key outside this set, naming the key.
     */
    public Set<String> settingKeys() {
        return Set.of();
    }

    /**
     * Receives the application's settings (its properties file and the controller's
     * {@code openbox.apps.NAME.*} properties) before {@link #statements()} is called; throws
     * IllegalArgumentException naming the key (and file:line for rule files) when they are
     * wrong, and the application is not run. The default accepts only {@link #settingKeys()}.
     */
    public void configure(AppSettings settings) {
        settings.requireKnown(settingKeys());
    }

    /**
     * Where rule {@code rule} of block {@code block} of this application's graphs was written,
     * as {@code FILE:LINE}, so errors the OBI reports for that rule can name the line; empty
     * when the application does not know. Call after {@link #statements()}.
     */
    public Optional<String> ruleOrigin(String block, int rule) {
        return Optional.empty();
    }

    /**
     * The rule behind alerts of block {@code block} of this application's graphs (an Alert
     * block per rule, as a firewall or an IPS builds them), so that each alert names the
     * application's rule: its number, revision and message. Empty when the block is not
     * one rule's. Called for every alert: keep it cheap. Call after {@link #statements()}.
     */
    public Optional<AlertRule> alertRule(String block) {
        return Optional.empty();
    }

    /** Where each processing graph runs. Called once when the application is loaded. */
    public abstract List<Statement> statements();

    /**
     * Custom modules (shared object + block descriptors) the application's graphs need.
     * The controller installs each on the OBIs where the application runs before its graph
     * is deployed there; when an OBI refuses a module, the application gets an Error event
     * and its graph is not deployed on that OBI (other applications are not affected).
     * Called once when the application is loaded; none by default.
     */
    public List<CustomModule> customModules() {
        return List.of();
    }

    /** Called once the application's graphs have been accepted by the controller. */
    public void start(AppContext ctx) {}

    /** Called when the application is unloaded or the controller stops. */
    public void stop() {}

    public void onAlert(AlertEvent e) {}

    public void onLog(LogEvent e) {}

    public void onInstanceUp(InstanceEvent e) {}

    public void onInstanceDown(InstanceEvent e) {}

    public void onError(ErrorEvent e) {}
}
