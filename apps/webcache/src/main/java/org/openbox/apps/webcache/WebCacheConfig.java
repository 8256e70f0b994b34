package org.openbox.apps.webcache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.openbox.api.AppSettings;
import org.openbox.api.Location;

/**
 * The web cache's configuration (keys in apps/README.md).
 *
 * @param backDevice where responses go: the client side, by default the input device
 * @param sites      host names whose objects are cached; empty means any host
 * @param addresses  IPv4 addresses or prefixes of the sites' servers; empty means requests to
 *                   any address are inspected
 * @param objects    the cached objects (path and content), each served for every site
 */
public record WebCacheConfig(
        Location location,
        String inDevice,
        String outDevice,
        String backDevice,
        List<String> sites,
        List<String> addresses,
        int port,
        List<CachedObject> objects,
        int mss) {

    /** A cached object before it is bound to a site. */
    public record CachedObject(String path, String contentType, byte[] body) {}

    /** What is cached when nothing is configured: one small page. */
    static final CachedObject BUILT_IN = new CachedObject(
            "/cached.html",
            "text/html",
            "<html><body>Served from the OpenBox web cache.</body></html>\n".getBytes(StandardCharsets.US_ASCII));

    static final Set<String> KEYS = Set.of(
            "location",
            "device.in",
            "device.out",
            "device.back",
            "sites",
            "sites.addresses",
            "http.port",
            "objects",
            "objects.dir",
            "mss");
    private static final Pattern ADDRESS = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}(/\\d{1,2})?");

    public WebCacheConfig {
        sites = List.copyOf(sites);
        addresses = List.copyOf(addresses);
        objects = List.copyOf(objects);
    }

    /** The configuration the application finds at run time (see {@link AppSettings#load}). */
    public static WebCacheConfig load() {
        return from(AppSettings.load("webcache"));
    }

    /** Every key at its default: the built-in page for any host on tcp/80, devices "in"/"out". */
    public static WebCacheConfig defaults() {
        return from(AppSettings.of(new Properties()));
    }

    static WebCacheConfig from(AppSettings s) {
        s.requireKnown(KEYS);
        String in = s.get("device.in", "in");
        List<String> addresses = s.getList("sites.addresses");
        for (String a : addresses) {
            if (!ADDRESS.matcher(a).matches()) {
                throw s.error("sites.addresses", "'" + a + "' is not an IPv4 address or a.b.c.d/len prefix");
            }
        }
        List<CachedObject> objects = new ArrayList<>();
        for (String item : s.getList("objects")) {
            int eq = item.indexOf('=');
            if (eq <= 0 || eq == item.length() - 1) {
                throw s.error("objects", "'" + item + "' is not PATH=FILE");
            }
            String path = item.substring(0, eq).strip();
            Path file = s.resolve(item.substring(eq + 1).strip());
            objects.add(new CachedObject(
                    path, CacheEntry.contentTypeOf(file.getFileName().toString()), read(file)));
        }
        s.getPath("objects.dir").ifPresent(dir -> objects.addAll(directory(dir)));
        if (objects.isEmpty()) {
            objects.add(BUILT_IN);
        }
        return new WebCacheConfig(
                s.location(),
                in,
                s.get("device.out", "out"),
                s.get("device.back", in),
                s.getList("sites"),
                addresses,
                s.getInt("http.port", 80, 1, 65535),
                objects,
                s.getInt("mss", 1460, 64, 9000));
    }

    /** Every regular file under {@code dir}, served as "/" + its path relative to dir. */
    private static List<CachedObject> directory(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("objects.dir: " + dir + " is not a directory");
        }
        try (Stream<Path> files = Files.walk(dir)) {
            List<CachedObject> out = new ArrayList<>();
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                String rel = dir.relativize(f).toString().replace('\\', '/');
                out.add(new CachedObject(
                        "/" + rel, CacheEntry.contentTypeOf(f.getFileName().toString()), read(f)));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("objects.dir: cannot list " + dir + ": " + e.getMessage(), e);
        }
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read cached object " + file + ": " + e.getMessage(), e);
        }
    }

    /** The responder's entries: every object for every site (or for any host when no site is set). */
    public List<CacheEntry> entries() {
        List<String> hosts = sites.isEmpty() ? List.of("") : sites;
        List<CacheEntry> out = new ArrayList<>();
        for (String host : hosts) {
            for (CachedObject o : objects) {
                out.add(new CacheEntry(host, o.path(), o.contentType(), o.body()));
            }
        }
        return out;
    }
}
