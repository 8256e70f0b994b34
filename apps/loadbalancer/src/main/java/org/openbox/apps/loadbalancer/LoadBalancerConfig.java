package org.openbox.apps.loadbalancer;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import org.openbox.api.AppSettings;
import org.openbox.api.Location;

/**
 * The load balancer's configuration (keys in apps/README.md).
 *
 * @param routes        prefix rules, first match wins
 * @param routeOnSource whether route prefixes are compared with the source address (else the destination)
 * @param hashOutputs   devices flows are spread over when no route matches; empty for no hashing
 * @param hashOnSource  whether the flow hash takes the source address (else the destination)
 * @param buckets       hash buckets (a power of two, at least the number of hash outputs);
 *                      bucket b goes to hash output b mod n
 * @param defaultDevice where packets no rule matches go (non-IPv4 packets, for instance)
 */
public record LoadBalancerConfig(
        Location location,
        String inDevice,
        List<Route> routes,
        boolean routeOnSource,
        List<String> hashOutputs,
        boolean hashOnSource,
        int buckets,
        String defaultDevice) {

    /** IPv4 prefix -> output device. */
    public record Route(String prefix, String device) {}

    static final List<String> DEFAULT_HASH_OUTPUTS = List.of("out0", "out1");
    static final int MAX_BUCKETS = 65536;
    static final Set<String> KEYS = Set.of(
            "location",
            "device.in",
            "routes",
            "routes.field",
            "hash.outputs",
            "hash.field",
            "hash.buckets",
            "device.default");
    private static final Pattern PREFIX = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}(/\\d{1,2})?");

    public LoadBalancerConfig {
        routes = List.copyOf(routes);
        hashOutputs = List.copyOf(hashOutputs);
    }

    /** The configuration the application finds at run time (see {@link AppSettings#load}). */
    public static LoadBalancerConfig load() {
        return from(AppSettings.load("loadbalancer"));
    }

    /** Every key at its default: flows hashed by source address over "out0" and "out1". */
    public static LoadBalancerConfig defaults() {
        return from(AppSettings.of(new Properties()));
    }

    static LoadBalancerConfig from(AppSettings s) {
        s.requireKnown(KEYS);
        List<Route> routes = new ArrayList<>();
        for (String item : s.getList("routes")) {
            int eq = item.indexOf('=');
            String prefix = eq < 0 ? "" : item.substring(0, eq).strip();
            String device = eq < 0 ? "" : item.substring(eq + 1).strip();
            if (!PREFIX.matcher(prefix).matches() || device.isEmpty()) {
                throw s.error("routes", "'" + item + "' is not PREFIX=DEVICE (e.g. 10.0.1.0/24=out1)");
            }
            routes.add(new Route(prefix, device));
        }
        List<String> hash = s.get("hash.outputs").isPresent()
                ? s.getList("hash.outputs")
                : routes.isEmpty() ? DEFAULT_HASH_OUTPUTS : List.of();
        if (routes.isEmpty() && hash.isEmpty()) {
            throw s.error("hash.outputs", "no routes and no hash outputs: nothing to balance over");
        }
        if (hash.size() != Set.copyOf(hash).size()) {
            throw s.error("hash.outputs", "a device is listed twice in " + hash);
        }
        // the smallest power of two >= the number of hash outputs
        int minBuckets = hash.size() <= 1 ? 1 : Integer.highestOneBit(hash.size() - 1) << 1;
        int buckets = hash.isEmpty() ? 0 : s.getInt("hash.buckets", minBuckets, hash.size(), MAX_BUCKETS);
        if (Integer.bitCount(Math.max(buckets, 1)) != 1) {
            throw s.error("hash.buckets", buckets + " is not a power of two");
        }
        String defaultDevice = s.get(
                "device.default", !hash.isEmpty() ? hash.get(0) : routes.get(0).device());
        return new LoadBalancerConfig(
                s.location(),
                s.get("device.in", "in"),
                routes,
                field(s, "routes.field", false),
                hash,
                field(s, "hash.field", true),
                buckets,
                defaultDevice);
    }

    /** True for the source address, false for the destination. */
    private static boolean field(AppSettings s, String key, boolean sourceByDefault) {
        return switch (s.get(key, sourceByDefault ? "ipv4_src" : "ipv4_dst").toLowerCase()) {
            case "ipv4_src", "src" -> true;
            case "ipv4_dst", "dst" -> false;
            default -> throw s.error(key, "'" + s.get(key, "") + "' is not ipv4_src or ipv4_dst");
        };
    }
}
