package org.openbox.api;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where an application's configuration comes from and typed access to it. The file is the one
 * named by system property {@code openbox.app.<name>.config}, else {@code <name>.properties}
 * in the working directory, else none (every key takes its default). Relative paths in a file
 * are resolved against the file's directory. Errors name the key and the file.
 *
 * <pre>AppSettings s = AppSettings.load("firewall");
 * Path rules = s.getPath("rules.file").orElse(defaultRules);</pre>
 */
public final class AppSettings {

    private final Properties props;
    private final Path baseDir;
    private final String source;

    public AppSettings(Properties props, Path baseDir, String source) {
        this.props = props;
        this.baseDir = baseDir;
        this.source = source;
    }

    /** The configuration of application {@code app}, found as described above. */
    public static AppSettings load(String app) {
        String property = "openbox.app." + app + ".config";
        String named = System.getProperty(property);
        if (named != null && !named.isBlank()) {
            Path file = Path.of(named);
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException(property + " names " + file.toAbsolutePath()
                        + ", which is not a readable file");
            }
            return read(file);
        }
        Path local = Path.of(app + ".properties");
        if (Files.isRegularFile(local)) {
            return read(local);
        }
        return new AppSettings(new Properties(), Path.of(""), "built-in defaults");
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

    public String source() {
        return source;
    }

    /** Fails on a key that is not in {@code known}, which is most often a typo. */
    public void requireKnown(Set<String> known) {
        Set<String> unknown = new TreeSet<>(props.stringPropertyNames());
        unknown.removeAll(known);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(source + ": unknown key(s) " + unknown
                    + "; known: " + new TreeSet<>(known));
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
        return get(key).map(this::resolve);
    }

    public Path resolve(String path) {
        return baseDir.resolve(path).normalize();
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
        return new IllegalArgumentException(source + ": " + key + ": " + what);
    }
}
