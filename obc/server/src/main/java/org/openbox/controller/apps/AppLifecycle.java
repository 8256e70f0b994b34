package org.openbox.controller.apps;

import java.util.ArrayList;
import java.util.List;
import org.openbox.api.Application;
import org.openbox.api.CustomModule;
import org.openbox.api.FailureMode;
import org.openbox.api.Statement;
import org.openbox.controller.OpenboxProperties;
import org.openbox.controller.handles.HandleRouter;
import org.openbox.controller.isolation.FailurePolicy;
import org.openbox.controller.isolation.StateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;

/**
 * Loads, validates, starts and stops applications.
 *
 * <p>At startup every discovered application is registered: its statements are read and
 * each graph is checked by {@link GraphValidator}; an application with an invalid graph is
 * REFUSED with the reason (logged and shown by GET /api/apps) and the others carry on.
 * Valid applications start at once when {@code openbox.autostart} is true. Every change of
 * the running set publishes {@link AppsChanged}, which makes the OBI manager recompute and
 * re-push the merged graphs.
 *
 * <p>Each application's failure mode is the operator's override or its own
 * ({@link FailurePolicy}). What the operator does (stop, start, reload) is kept in the
 * {@link StateStore}: an application the operator stopped stays stopped when the controller
 * restarts. A reload ({@link #prepareReload}, {@link #apply}, {@link #restore},
 * {@link #finishReload}) builds the application again and swaps it in; the caller deploys
 * and rolls back.
 */
@Service
public class AppLifecycle implements SmartInitializingSingleton, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(AppLifecycle.class);

    /** Outcome of a start or stop request. */
    public record Result(boolean ok, AppState state, String message) {}

    private final AppCatalog catalog;
    private final AppLoader loader;
    private final GraphValidator validator;
    private final TopologyHolder topology;
    private final HandleRouter handles;
    private final ApplicationEventPublisher events;
    private final OpenboxProperties props;
    private final ModuleRegistry modules;
    private final FailurePolicy policy;
    private final StateStore store;
    private final StartupGate gate;
    private final AppLimitsCheck limits;

    public AppLifecycle(
            AppCatalog catalog,
            AppLoader loader,
            GraphValidator validator,
            TopologyHolder topology,
            HandleRouter handles,
            ApplicationEventPublisher events,
            OpenboxProperties props,
            ModuleRegistry modules,
            FailurePolicy policy,
            StateStore store,
            StartupGate gate,
            AppLimitsCheck limits) {
        this.limits = limits;
        this.policy = policy;
        this.store = store;
        this.gate = gate;
        this.modules = modules;
        this.catalog = catalog;
        this.loader = loader;
        this.validator = validator;
        this.topology = topology;
        this.handles = handles;
        this.events = events;
        this.props = props;
    }

    @Override
    public void afterSingletonsInstantiated() {
        AppLoader.Discovery d = loader.discover();
        for (AppLoader.LoadFailure f : d.failures()) {
            log.error("application not loaded from {}: {}", f.source(), f.error());
            catalog.add(new AppEntry(f.source(), null, f.source(), 0, List.of(), AppState.REFUSED, f.error()));
        }
        for (AppLoader.Found f : d.apps()) {
            register(f.app(), f.source(), f.name());
        }
        gate.verify(catalog.all());
        if (props.autostart()) {
            for (AppEntry e : catalog.all()) {
                if (e.state() == AppState.STOPPED && e.stoppedByOperator()) {
                    log.info(
                            "application '{}' stays stopped: the operator stopped it (state file {})",
                            e.name(),
                            store.file());
                } else if (e.state() == AppState.STOPPED) {
                    start(e.name());
                }
            }
        }
    }

    /** Adds an application (STOPPED when valid, REFUSED otherwise); returns its entry. */
    public AppEntry register(Application app, String source) {
        return register(app, source, null);
    }

    /**
     * Adds an application under {@code instanceName} (null: its own {@link Application#name()}),
     * STOPPED when valid, REFUSED otherwise; returns its entry.
     */
    public AppEntry register(Application app, String source, String instanceName) {
        String name;
        int priority;
        try {
            name = instanceName != null ? instanceName : app.name();
            priority = app.priority();
        } catch (RuntimeException e) {
            name = app.getClass().getName();
            AppEntry refused = refused(name, app, source, 0, "name()/priority() failed: " + e);
            catalog.add(refused);
            return refused;
        }
        if (name == null || name.isBlank()) {
            name = app.getClass().getName();
            AppEntry refused = refused(name, app, source, priority, "application name is empty");
            catalog.add(refused);
            return refused;
        }
        AppEntry entry;
        try {
            List<CustomModule> declared = customModules(name, app);
            entry = new AppEntry(
                    name, app, source, priority, placedGraphs(name, app, declared), AppState.STOPPED, null);
            entry.modules(declared);
        } catch (RuntimeException e) {
            // refused, but where it would run is still known: its failure mode applies there
            entry = new AppEntry(name, app, source, priority, placementsOf(app), AppState.REFUSED, e.getMessage());
        }
        entry.failureMode(policy.modeOf(name, declaredMode(app)));
        StateStore.AppRecord saved = store.get(name);
        if (saved != null) {
            entry.stoppedByOperator(saved.stoppedByOperator());
            entry.reloadedAt(saved.reloadedAt());
        }
        if (!catalog.add(entry)) {
            String other = catalog.get(name).map(AppEntry::source).orElse("?");
            String alias = name + "@" + source;
            log.error("application '{}' from {} refused: the name is already used by {}", name, source, other);
            entry = new AppEntry(
                    alias,
                    app,
                    source,
                    priority,
                    List.of(),
                    AppState.REFUSED,
                    "application name '" + name + "' is already used by " + other);
            catalog.add(entry);
        } else if (entry.state() == AppState.REFUSED) {
            log.error("application '{}' from {} refused: {}", name, source, entry.error());
        } else {
            log.info("application '{}' (priority {}) loaded from {}", name, priority, source);
        }
        return entry;
    }

    /** What the application declares; closed when asking it fails (the safe side). */
    private static FailureMode declaredMode(Application app) {
        try {
            FailureMode m = app.failureMode();
            return m == null ? FailureMode.OPEN : m;
        } catch (RuntimeException e) {
            log.warn(
                    "application {}: failureMode() failed ({}); closed assumed",
                    app.getClass().getName(),
                    e.toString());
            return FailureMode.CLOSED;
        }
    }

    private void save(AppEntry e) {
        store.put(
                e.name(),
                new StateStore.AppRecord(e.stoppedByOperator(), e.failureMode().label(), e.reloadedAt()));
    }

    private static AppEntry refused(String name, Application app, String source, int priority, String why) {
        return new AppEntry(name, app, source, priority, List.of(), AppState.REFUSED, why);
    }

    /** Reads and checks the application's custom modules against the other applications' ones. */
    private List<CustomModule> customModules(String name, Application app) {
        List<CustomModule> declared;
        try {
            declared = app.customModules();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("customModules() failed: " + e.getMessage(), e);
        }
        if (declared == null) {
            return List.of();
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        for (CustomModule m : declared) {
            if (m == null || !names.add(m.name())) {
                throw new IllegalArgumentException(
                        m == null
                                ? "customModules() lists null"
                                : "custom module '" + m.name() + "' is declared twice");
            }
        }
        List<String> problems = modules.conflicts(name, declared);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return List.copyOf(declared);
    }

    /**
     * The statements of a refused application as far as they can be read (location and the
     * graph's blocks, unvalidated): only the input and output terminals are used, for the
     * graph that stands in for it ({@code FailSafeGraphs}). Empty when they cannot be read.
     */
    private static List<PlacedGraph> placementsOf(Application app) {
        List<PlacedGraph> out = new ArrayList<>();
        try {
            List<Statement> statements = app.statements();
            for (Statement s : statements == null ? List.<Statement>of() : statements) {
                if (s != null && s.location() != null && s.graph() != null) {
                    out.add(new PlacedGraph(s.location(), s.graph().toGraph()));
                }
            }
        } catch (RuntimeException | LinkageError e) {
            return List.of();
        }
        return out;
    }

    /**
     * Reads and validates the statements, then checks them against the application's limits;
     * throws with a message naming the statement or the limit.
     */
    private List<PlacedGraph> placedGraphs(String name, Application app, List<CustomModule> declared) {
        org.openbox.catalogue.Catalogue types = modules.catalogueWith(declared);
        List<Statement> statements = app.statements();
        if (statements == null || statements.isEmpty()) {
            throw new IllegalArgumentException("application has no statements");
        }
        List<PlacedGraph> out = new ArrayList<>();
        for (int i = 0; i < statements.size(); i++) {
            Statement s = statements.get(i);
            try {
                if (s == null || s.location() == null || s.graph() == null) {
                    throw new IllegalArgumentException("location and graph are required");
                }
                validator.validate(s.graph(), types);
                out.add(new PlacedGraph(s.location(), s.graph().toGraph()));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("invalid graph in statement " + i + ": " + e.getMessage(), e);
            }
        }
        limits.check(name, out.stream().map(PlacedGraph::graph).toList(), types);
        return out;
    }

    public synchronized Result start(String name) {
        AppEntry e = catalog.get(name).orElse(null);
        if (e == null) {
            return new Result(false, null, "no application named '" + name + "'");
        }
        if (e.state() == AppState.RUNNING) {
            return new Result(true, e.state(), "already running");
        }
        if (e.state() == AppState.REFUSED) {
            return new Result(false, e.state(), "refused at load: " + e.error());
        }
        e.stoppedByOperator(false);
        save(e);
        try {
            e.graphs(placedGraphs(name, e.app(), e.modules()));
            e.app().start(new ControllerAppContext(handles.clientFor(name), topology.topology()));
        } catch (RuntimeException ex) {
            e.state(AppState.FAILED, "start failed: " + ex.getMessage());
            log.error("application '{}' failed to start", name, ex);
            events.publishEvent(new AppsChanged(name, AppState.FAILED)); // its failure mode applies
            return new Result(false, e.state(), e.error());
        }
        e.state(AppState.RUNNING, null);
        log.info("application '{}' started", name);
        events.publishEvent(new AppsChanged(name, AppState.RUNNING));
        return new Result(true, e.state(), "started");
    }

    public synchronized Result stop(String name) {
        AppEntry e = catalog.get(name).orElse(null);
        if (e == null) {
            return new Result(false, null, "no application named '" + name + "'");
        }
        if (e.state() != AppState.RUNNING && e.state() != AppState.FAILED) {
            return new Result(true, e.state(), "not running");
        }
        e.stoppedByOperator(true);
        save(e);
        if (e.state() == AppState.FAILED) {
            // its failure mode no longer applies: the operator took it out
            e.state(AppState.STOPPED, null);
            events.publishEvent(new AppsChanged(name, AppState.STOPPED));
            return new Result(true, e.state(), "stopped");
        }
        e.state(AppState.STOPPED, null);
        try {
            e.app().stop();
        } catch (RuntimeException ex) {
            log.warn("application '{}' threw in stop()", name, ex);
        }
        log.info("application '{}' stopped", name);
        events.publishEvent(new AppsChanged(name, AppState.STOPPED));
        return new Result(true, e.state(), "stopped");
    }

    /** The application's state name (null: no such application). */
    public String stateOf(String name) {
        return catalog.get(name).map(e -> e.state().name()).orElse(null);
    }

    /** A new definition of an application, validated, not yet in use. */
    public record Prepared(AppEntry entry, Application app, List<PlacedGraph> graphs, List<CustomModule> modules) {}

    /** What an application was before {@link #apply}, to put back with {@link #restore}. */
    public record Snapshot(
            AppEntry entry,
            Application app,
            List<PlacedGraph> graphs,
            List<CustomModule> modules,
            AppState state,
            String error) {}

    /**
     * Builds the application again (a new instance from its class when it has a public
     * no-argument constructor and is not a Spring bean; otherwise the same instance), gives
     * it its settings as they are now (so its rule files are read again) and validates its
     * custom modules and graphs.
     *
     * @throws java.util.NoSuchElementException no such application
     * @throws IllegalStateException it cannot be reloaded (refused at load)
     * @throws IllegalArgumentException the new definition is invalid (the message says why)
     */
    public synchronized Prepared prepareReload(String name) {
        AppEntry e = catalog.get(name)
                .orElseThrow(() -> new java.util.NoSuchElementException("no application named '" + name + "'"));
        if (e.app() == null || e.state() == AppState.REFUSED) {
            throw new IllegalStateException("'" + name + "' was refused at load and cannot be reloaded: " + e.error());
        }
        // a Spring bean is Spring's to build (it may have injected collaborators): it re-reads itself
        Application fresh = e.source().startsWith("bean:") ? e.app() : newInstance(e.app());
        String freshName;
        String ownName;
        try {
            freshName = fresh.name();
            // the name it had when registered: an instance (openbox.instances) runs under another one
            ownName = fresh == e.app() ? name : e.app().name();
        } catch (RuntimeException ex) {
            throw new IllegalArgumentException("name() failed: " + ex, ex);
        }
        if (!ownName.equals(freshName)) {
            throw new IllegalArgumentException(
                    "the reloaded application is named '" + freshName + "', not '" + ownName + "'");
        }
        String problem = loader.configure(fresh, name); // settings and rule files as they are now
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        try {
            List<CustomModule> declared = customModules(name, fresh);
            return new Prepared(e, fresh, placedGraphs(name, fresh, declared), declared);
        } catch (IllegalArgumentException ex) {
            throw ex;
        } catch (RuntimeException ex) {
            throw new IllegalArgumentException(ex.toString(), ex);
        }
    }

    private static Application newInstance(Application current) {
        try {
            java.lang.reflect.Constructor<? extends Application> c =
                    current.getClass().getConstructor();
            return c.newInstance();
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return current; // not built by a loader: the same instance reads its settings again
        } catch (java.lang.reflect.InvocationTargetException | InstantiationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalArgumentException("building " + current.getClass().getName() + " failed: " + cause, cause);
        }
    }

    /** Puts the new definition in place (the caller deploys it); returns what was there. */
    public synchronized Snapshot apply(Prepared p) {
        AppEntry e = p.entry();
        Snapshot old = new Snapshot(e, e.app(), e.graphs(), e.modules(), e.state(), e.error());
        e.app(p.app());
        e.graphs(p.graphs());
        e.modules(p.modules());
        if (e.state() == AppState.FAILED) {
            e.state(AppState.RUNNING, null); // the new definition is tried
        }
        return old;
    }

    /** Puts back what {@link #apply} replaced. */
    public synchronized void restore(Snapshot s) {
        AppEntry e = s.entry();
        e.app(s.app());
        e.graphs(s.graphs());
        e.modules(s.modules());
        if (e.state() != s.state()) {
            e.state(s.state(), s.error());
        }
    }

    /**
     * The new definition runs on the OBIs: a new instance replaces the old one (the old is
     * stopped, the new started when the application runs). Records the reload time.
     *
     * @throws IllegalStateException the new instance's start() failed (nothing changed yet
     *         for the old instance; the caller restores and deploys again)
     */
    public synchronized void finishReload(Prepared p, Snapshot old) {
        AppEntry e = p.entry();
        boolean running = e.state() == AppState.RUNNING;
        if (p.app() != old.app() && running) {
            try {
                p.app().start(new ControllerAppContext(handles.clientFor(e.name()), topology.topology()));
            } catch (RuntimeException ex) {
                throw new IllegalStateException(
                        "start() of the reloaded '" + e.name() + "' failed: " + ex.getMessage(), ex);
            }
            if (old.state() == AppState.RUNNING) {
                try {
                    old.app().stop();
                } catch (RuntimeException ex) {
                    log.warn("application '{}' (previous instance) threw in stop()", e.name(), ex);
                }
            }
        }
        e.reloadedAt(java.time.Instant.now());
        save(e);
        log.info(
                "application '{}' reloaded ({} statement(s))",
                e.name(),
                e.graphs().size());
    }

    @Override
    public void destroy() {
        for (AppEntry e : catalog.all()) {
            if (e.running()) {
                try {
                    e.app().stop();
                } catch (RuntimeException ex) {
                    log.warn("application '{}' threw in stop()", e.name(), ex);
                }
            }
        }
    }
}
