package org.openbox.api;

import java.util.List;
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
    public void start(AppContext ctx) {
    }

    /** Called when the application is unloaded or the controller stops. */
    public void stop() {
    }

    public void onAlert(AlertEvent e) {
    }

    public void onLog(LogEvent e) {
    }

    public void onInstanceUp(InstanceEvent e) {
    }

    public void onInstanceDown(InstanceEvent e) {
    }

    public void onError(ErrorEvent e) {
    }
}
