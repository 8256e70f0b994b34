package org.openbox.controller.apps;

import java.util.ArrayList;
import java.util.List;
import org.openbox.api.Application;
import org.openbox.api.CustomModule;
import org.openbox.api.Statement;
import org.openbox.controller.OpenboxProperties;
import org.openbox.controller.handles.HandleRouter;
import org.openbox.protocol.graph.Graph;
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
    private final StartupGate gate;

    public AppLifecycle(AppCatalog catalog, AppLoader loader, GraphValidator validator, TopologyHolder topology,
                        HandleRouter handles, ApplicationEventPublisher events, OpenboxProperties props,
                        ModuleRegistry modules, StartupGate gate) {
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
            register(f.app(), f.source());
        }
        gate.verify(catalog.all());
        if (props.autostart()) {
            for (AppEntry e : catalog.all()) {
                if (e.state() == AppState.STOPPED) {
                    start(e.name());
                }
            }
        }
    }

    /** Adds an application (STOPPED when valid, REFUSED otherwise); returns its entry. */
    public AppEntry register(Application app, String source) {
        String name;
        int priority;
        try {
            name = app.name();
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
            entry = new AppEntry(name, app, source, priority, placedGraphs(app, declared), AppState.STOPPED, null);
            entry.modules(declared);
        } catch (RuntimeException e) {
            entry = refused(name, app, source, priority, e.getMessage());
        }
        if (!catalog.add(entry)) {
            String other = catalog.get(name).map(AppEntry::source).orElse("?");
            String alias = name + "@" + source;
            log.error("application '{}' from {} refused: the name is already used by {}", name, source, other);
            entry = new AppEntry(alias, app, source, priority, List.of(), AppState.REFUSED,
                    "application name '" + name + "' is already used by " + other);
            catalog.add(entry);
        } else if (entry.state() == AppState.REFUSED) {
            log.error("application '{}' from {} refused: {}", name, source, entry.error());
        } else {
            log.info("application '{}' (priority {}) loaded from {}", name, priority, source);
        }
        return entry;
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
                throw new IllegalArgumentException(m == null ? "customModules() lists null"
                        : "custom module '" + m.name() + "' is declared twice");
            }
        }
        List<String> problems = modules.conflicts(name, declared);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return List.copyOf(declared);
    }

    /** Reads and validates the statements; throws with a message naming the statement. */
    private List<PlacedGraph> placedGraphs(Application app, List<CustomModule> declared) {
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
                Graph g = s.graph().toGraph();
                validator.validate(g, types);
                out.add(new PlacedGraph(s.location(), g));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("invalid graph in statement " + i + ": " + e.getMessage(), e);
            }
        }
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
        try {
            e.graphs(placedGraphs(e.app(), e.modules()));
            e.app().start(new ControllerAppContext(handles.clientFor(name), topology.topology()));
        } catch (RuntimeException ex) {
            e.state(AppState.FAILED, "start failed: " + ex.getMessage());
            log.error("application '{}' failed to start", name, ex);
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
        if (e.state() != AppState.RUNNING) {
            return new Result(true, e.state(), "not running");
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
