package org.openbox.api;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where an application's settings come from and typed access to them.
 *
 * <p>Two sources, merged key by key:
 * <ol>
 *   <li>a Java properties file: the one named by {@code openbox.app.NAME.config} (system property
 *       or controller property), else {@code NAME.properties} in the working directory, else none;
 *       relative paths in it resolve against the file's directory;</li>
 *   <li>the controller's properties {@code openbox.apps.NAME.KEY} (application.properties,
 *       environment variables, {@code --openbox.apps.NAME.KEY=...} flags); relative paths in them
 *       resolve against the working directory.</li>
 * </ol>
 * A key given in both takes the controller property's value. Errors name the key and where it
 * was given ({@code firewall.properties: rules.format: ...}).
 *
 * <pre>AppSettings s = AppSettings.load("firewall");
 * Path rules = s.getPath("rules.file").orElse(defaultRules);</pre>
 */
public final class AppSettings {

    /** The source label of settings that name no file and no property. */
    public static final String NONE = "built-in defaults";

    private final Properties props;
    private final Path baseDir;
    private final String source;
    /** Keys given as controller properties, and where they were given (e.g. openbox.apps.firewall). */
    private final Map<String, String> overridden;
    /** Where the other keys were given: the file (or the in-memory properties). */
    private final String fileSource;

    public AppSettings(Properties props, Path baseDir, String source) {
        this(props, baseDir, source, Map.of(), source);
    }

    private AppSettings(
            Properties props, Path baseDir, String source, Map<String, String> overridden, String fileSource) {
        this.props = props;
        this.baseDir = baseDir;
        this.source = source;
        this.overridden = Map.copyOf(overridden);
        this.fileSource = fileSource;
    }

    /** The settings of application {@code app} from its file only, the file found as described above. */
    public static AppSettings load(String app) {
        return load(app, System.getProperty(configProperty(app)), Map.of());
    }

    /**
     * The settings of application {@code app}: its file ({@code configFile} when not blank, else
     * {@code NAME.properties} in the working directory when it exists) with {@code properties}
     * (the controller's {@code openbox.apps.NAME.*}, keys without that prefix) over it.
     */
    public static AppSettings load(String app, String configFile, Map<String, String> properties) {
        AppSettings file;
        if (configFile != null && !configFile.isBlank()) {
            Path named = Path.of(configFile.strip());
            if (!Files.isRegularFile(named)) {
                throw new IllegalArgumentException(
                        configProperty(app) + " names " + named.toAbsolutePath() + ", which is not a readable file");
            }
            file = read(named);
        } else if (Files.isRegularFile(Path.of(app + ".properties"))) {
            file = read(Path.of(app + ".properties"));
        } else {
            file = new AppSettings(new Properties(), Path.of(""), NONE);
        }
        if (properties.isEmpty()) {
            return file;
        }
        Properties merged = new Properties();
        merged.putAll(file.props);
        Map<String, String> overridden = new HashMap<>();
        String prefix = "openbox.apps." + app;
        properties.forEach((k, v) -> {
            merged.setProperty(k, v == null ? "" : v);
            overridden.put(k, prefix);
        });
        String source = file.source.equals(NONE) ? prefix + ".*" : file.source + " + " + prefix + ".*";
        return new AppSettings(merged, file.baseDir, source, overridden, file.source);
    }

    /** The property naming the settings file of {@code app}: {@code openbox.app.APP.config}. */
    public static String configProperty(String app) {
        return "openbox.app." + app + ".config";
    }

    /** The properties in {@code file}. */
    public static AppSettings read(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read configuration " + file + ": " + e.getMessage(), e);
        }
        Path dir = file.toAbsolutePath().getParent();
        return new AppSettings(p, dir, file.toString());
    }

    /** AppSettings from in-memory properties (relative paths resolve against the working directory). */
    public static AppSettings of(Properties p) {
        return new AppSettings(p, Path.of(""), "properties");
    }

    /** Whether no key is set at all: the application runs on its built-in defaults. */
    public boolean isEmpty() {
        return props.isEmpty();
    }

    /** The keys that are set. */
    public Set<String> keys() {
        return new TreeSet<>(props.stringPropertyNames());
    }

    public String source() {
        return source;
    }

    /** Fails on a key that is not in {@code known}, which is most often a typo; names each and the known ones. */
    public void requireKnown(Set<String> known) {
        Set<String> unknown = new TreeSet<>(props.stringPropertyNames());
        unknown.removeAll(known);
        if (!unknown.isEmpty()) {
            List<String> named = new ArrayList<>();
            for (String key : unknown) {
                named.add(where(key) + ": unknown key '" + key + "'");
            }
            throw new IllegalArgumentException(
                    String.join("; ", named) + " (known keys: " + String.join(", ", new TreeSet<>(known)) + ")");
        }
    }

    /** The trimmed value of {@code key}; absent when missing or blank. */
    public Optional<String> get(String key) {
        String v = props.getProperty(key);
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.strip());
    }

    public String get(String key, String defaultValue) {
        return get(key).orElse(defaultValue);
    }

    public int getInt(String key, int defaultValue, int min, int max) {
        Optional<String> v = get(key);
        if (v.isEmpty()) {
            return defaultValue;
        }
        try {
            int i = Integer.parseInt(v.get());
            if (i < min || i > max) {
                throw new NumberFormatException();
            }
            return i;
        } catch (NumberFormatException e) {
            throw error(key, "'" + v.get() + "' is not an integer in " + min + ".." + max);
        }
    }

    public boolean getBool(String key, boolean defaultValue) {
        Optional<String> v = get(key);
        if (v.isEmpty()) {
            return defaultValue;
        }
        return switch (v.get().toLowerCase()) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw error(key, "'" + v.get() + "' is not a boolean (true or false)");
        };
    }

    /** A comma-separated list; empty when the key is missing. */
    public List<String> getList(String key) {
        List<String> out = new ArrayList<>();
        get(key).ifPresent(v -> {
            for (String item : v.split(",")) {
                if (!item.isBlank()) {
                    out.add(item.strip());
                }
            }
        });
        return out;
    }

    /** A path, resolved against the configuration file's directory; absent when missing. */
    public Optional<Path> getPath(String key) {
        return get(key).map(v -> resolve(key, v));
    }

    public Path resolve(String path) {
        return baseDir.resolve(path).normalize();
    }

    private Path resolve(String key, String path) {
        return overridden.containsKey(key) ? Path.of(path).toAbsolutePath().normalize() : resolve(path);
    }

    /** Where {@code key} was given: the controller property prefix or the file. */
    private String where(String key) {
        String prefix = overridden.get(key);
        return prefix != null ? prefix : fileSource;
    }

    /** Key {@code location}: network (default), segment:NAME or obi:DPID (decimal or 0x hex). */
    public Location location() {
        String v = get("location", "network");
        if (v.equals("network")) {
            return Location.network();
        }
        if (v.startsWith("segment:") && v.length() > "segment:".length()) {
            return Location.segment(v.substring("segment:".length()).strip());
        }
        if (v.startsWith("obi:")) {
            String id = v.substring("obi:".length()).strip();
            try {
                long dpid = id.startsWith("0x") ? Long.parseUnsignedLong(id.substring(2), 16) : Long.parseLong(id);
                return Location.obi(dpid);
            } catch (NumberFormatException e) {
                throw error("location", "bad dpid '" + id + "'");
            }
        }
        throw error("location", "'" + v + "' is not network, segment:NAME or obi:DPID");
    }

    public IllegalArgumentException error(String key, String what) {
        return new IllegalArgumentException(where(key) + ": " + key + ": " + what);
    }
}
