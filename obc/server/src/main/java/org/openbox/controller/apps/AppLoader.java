package org.openbox.controller.apps;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.openbox.api.AppSettings;
import org.openbox.api.Application;
import org.openbox.controller.OpenboxProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * Finds applications: Spring beans of type {@link Application}, providers on the
 * controller's classpath ({@code META-INF/services/org.openbox.api.Application}) and
 * providers in every {@code *.jar} of {@code openbox.apps-dir} (one class loader per jar,
 * child of the controller's, so a jar sees the northbound API but not other jars). The
 * same class found twice is loaded once. A jar that cannot be loaded becomes a failure
 * entry instead of stopping the others.
 *
 * <p>{@code openbox.instances.NAME=APP} runs one more instance of application APP under the
 * name NAME: a new object of APP's class (it needs a public no-argument constructor) with
 * its own settings ({@code openbox.apps.NAME.*}, {@code openbox.app.NAME.config}), e.g. two
 * firewalls with different rule files. An instance name already taken or an unknown APP
 * is a failure entry naming the property.
 *
 * <p>Every application found is then configured ({@link Application#configure}) with its
 * settings from {@link AppSettingsSource}; settings it does not accept or a rule file it
 * cannot read make a failure entry naming the application, the key or the file:line. An
 * application given no settings at all runs its built-in sample configuration, which is
 * logged as a warning.
 */
@Component
public class AppLoader implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(AppLoader.class);

    /**
     * An application instance, where it came from and the name it runs under: its own
     * {@link Application#name()}, or the instance name of {@code openbox.instances.NAME}.
     */
    public record Found(Application app, String source, String name) {

        public Found(Application app, String source) {
            this(app, source, nameOf(app));
        }
    }

    /** A provider that could not be instantiated. */
    public record LoadFailure(String source, String error) {}

    /** Everything one discovery pass found. */
    public record Discovery(List<Found> apps, List<LoadFailure> failures) {}

    private final ObjectProvider<Application> beans;
    private final OpenboxProperties props;
    private final AppSettingsSource settings;
    private final List<URLClassLoader> loaders = new ArrayList<>();

    public AppLoader(ObjectProvider<Application> beans, OpenboxProperties props, AppSettingsSource settings) {
        this.beans = beans;
        this.props = props;
        this.settings = settings;
    }

    public synchronized Discovery discover() {
        List<Found> found = new ArrayList<>();
        List<LoadFailure> failures = new ArrayList<>();
        Set<String> classes = new HashSet<>();
        beans.orderedStream().forEach(a -> {
            if (classes.add(a.getClass().getName())) {
                found.add(new Found(a, "bean:" + a.getClass().getName()));
            }
        });
        loadProviders(
                ServiceLoader.load(Application.class, getClass().getClassLoader()),
                null,
                "classpath",
                classes,
                found,
                failures);
        Path dir = props.appsDir();
        if (dir != null) {
            if (!Files.isDirectory(dir)) {
                failures.add(new LoadFailure("dir:" + dir, "application directory does not exist: " + dir));
            } else {
                for (Path jar : jars(dir, failures)) {
                    loadJar(jar, classes, found, failures);
                }
            }
        }
        addInstances(found, failures);
        List<Found> configured = new ArrayList<>();
        Set<String> names = new TreeSet<>();
        for (Found f : found) {
            names.add(f.name());
        }
        for (String unknown : settings.namesWithSettings()) {
            if (!names.contains(unknown)) {
                failures.add(new LoadFailure(
                        "openbox.apps." + unknown,
                        "app " + unknown + ": settings are given"
                                + " (openbox.apps." + unknown + ".* or openbox.app." + unknown
                                + ".config) but no application"
                                + " has that name (applications: " + String.join(", ", names) + ")"));
            }
        }
        for (Found f : found) {
            String problem = configure(f.app(), f.name());
            if (problem == null) {
                configured.add(f);
            } else {
                failures.add(new LoadFailure(f.name(), problem));
            }
        }
        return new Discovery(configured, failures);
    }

    /** Adds the instances of {@code openbox.instances.NAME=APP} (a new object of APP's class each). */
    private void addInstances(List<Found> found, List<LoadFailure> failures) {
        Map<String, String> instances = settings.instances();
        if (instances.isEmpty()) {
            return;
        }
        Map<String, Found> byName = new LinkedHashMap<>();
        for (Found f : found) {
            byName.putIfAbsent(f.name(), f);
        }
        for (Map.Entry<String, String> i : instances.entrySet()) {
            String name = i.getKey();
            String of = i.getValue() == null ? "" : i.getValue().strip();
            String property = "openbox.instances." + name;
            Found base = byName.get(of);
            if (!VALID_NAME.matcher(name).matches()) {
                failures.add(new LoadFailure(
                        property, property + ": instance name '" + name + "' is not letters, digits, '-' and '_'"));
            } else if (byName.containsKey(name)) {
                failures.add(new LoadFailure(
                        property,
                        property + ": the name '" + name + "' is already used by "
                                + byName.get(name).source()));
            } else if (instances.containsKey(of)) {
                failures.add(new LoadFailure(
                        property,
                        property + "=" + of + ": '" + of
                                + "' is itself an instance; name the application it is an instance of"));
            } else if (base == null) {
                failures.add(new LoadFailure(
                        property,
                        property + "=" + of + ": no application is named '" + of + "' (applications: "
                                + String.join(", ", new TreeSet<>(byName.keySet())) + ")"));
            } else if (base.source().startsWith("bean:")) {
                failures.add(new LoadFailure(
                        property, property + "=" + of + ": '" + of + "' is a Spring bean, which runs once"));
            } else {
                try {
                    Application app = base.app().getClass().getConstructor().newInstance();
                    Found f = new Found(app, base.source(), name);
                    found.add(f);
                    byName.put(name, f);
                } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                    failures.add(new LoadFailure(
                            property,
                            property + "=" + of + ": cannot build another instance of "
                                    + base.app().getClass().getName()
                                    + " (a public no-argument constructor is needed): "
                                    + causes(e)));
                }
            }
        }
    }

    /** What an instance name may be (it appears in block names, URLs and property names). */
    private static final Pattern VALID_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");

    /**
     * Gives {@code app}, running under {@code name}, the settings of that name, read now (at
     * load and at every reload); returns the problem, or null when it accepted them.
     */
    String configure(Application app, String name) {
        try {
            app.name();
        } catch (RuntimeException e) {
            return "app " + app.getClass().getName() + ": name() failed: " + e;
        }
        try {
            AppSettings s = settings.settingsFor(name);
            if (s.isEmpty()) {
                log.warn(
                        "application '{}' has no settings ({}, {}.properties and openbox.apps.{}.* are all unset):"
                                + " it runs its built-in sample configuration",
                        name,
                        AppSettings.configProperty(name),
                        name,
                        name);
            }
            app.configure(s);
            return null;
        } catch (RuntimeException | LinkageError e) {
            String msg = e.getMessage() == null ? e.toString() : e.getMessage();
            return RULE_FILE_LINE.matcher(msg).lookingAt() ? msg : "app " + name + ": " + msg;
        }
    }

    static String nameOf(Application app) {
        try {
            String n = app.name();
            return n == null || n.isBlank() ? app.getClass().getName() : n;
        } catch (RuntimeException e) {
            return app.getClass().getName();
        }
    }

    /** A message that already names its file and line ("rules/fw.rules:13: ..."). */
    static final Pattern RULE_FILE_LINE = Pattern.compile("\\S+:\\d+: ");

    private List<Path> jars(Path dir, List<LoadFailure> failures) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".jar"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            failures.add(new LoadFailure("dir:" + dir, "cannot list " + dir + ": " + e.getMessage()));
            return List.of();
        }
    }

    private void loadJar(Path jar, Set<String> classes, List<Found> found, List<LoadFailure> failures) {
        URLClassLoader loader;
        try {
            loader = new URLClassLoader(
                    "app:" + jar.getFileName(),
                    new URL[] {jar.toUri().toURL()},
                    getClass().getClassLoader());
        } catch (MalformedURLException e) {
            failures.add(new LoadFailure("jar:" + jar, e.getMessage()));
            return;
        }
        loaders.add(loader);
        int before = found.size();
        loadProviders(ServiceLoader.load(Application.class, loader), loader, "jar:" + jar, classes, found, failures);
        if (found.size() == before) {
            log.warn("{} provides no org.openbox.api.Application", jar);
        }
    }

    /** Loads providers; with {@code only} set, keeps those defined by that loader (not the parent's). */
    private static void loadProviders(
            ServiceLoader<Application> sl,
            ClassLoader only,
            String source,
            Set<String> classes,
            List<Found> found,
            List<LoadFailure> failures) {
        try {
            for (ServiceLoader.Provider<Application> p :
                    (Iterable<ServiceLoader.Provider<Application>>) sl.stream()::iterator) {
                try {
                    Class<? extends Application> type = p.type();
                    if (only != null && type.getClassLoader() != only) {
                        continue;
                    }
                    if (classes.add(type.getName())) {
                        found.add(new Found(p.get(), source));
                    }
                } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
                    failures.add(new LoadFailure(source, "cannot instantiate application: " + causes(e)));
                }
            }
        } catch (ServiceConfigurationError e) {
            failures.add(new LoadFailure(source, "bad provider configuration: " + e.getMessage()));
        }
    }

    /** The message of {@code e} and of each of its causes: "a: b: c". */
    static String causes(Throwable e) {
        StringBuilder out = new StringBuilder();
        Set<Throwable> seen = new HashSet<>();
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
            String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            if (out.indexOf(m) < 0) {
                out.append(out.length() == 0 ? "" : ": ").append(m);
            }
        }
        return out.toString();
    }

    @Override
    public synchronized void destroy() {
        for (URLClassLoader l : loaders) {
            try {
                l.close();
            } catch (IOException ignored) {
                // closing at shutdown only
            }
        }
    }
}
