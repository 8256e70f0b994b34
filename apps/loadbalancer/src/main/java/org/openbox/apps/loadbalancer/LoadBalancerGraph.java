package org.openbox.apps.loadbalancer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openbox.api.GraphBuilder;
import org.openbox.api.ProcessingGraph;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderClassifier;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;

/**
 * The load balancer's processing graph:
 * <pre>
 * FromDevice "in" -> HeaderClassifier "split"
 *     one row per route (IPV4_DST or IPV4_SRC prefix)          -> ToDevice "to-DEVICE"
 *     one row per hash bucket b (IPV4_SRC "0.0.0.b%0.0.0.m")   -> ToDevice of hash output b mod n
 *     last row (everything else)                               -> ToDevice of the default device
 * </pre>
 * A bucket row matches the packets whose address has b in its low bits (m = buckets - 1), so
 * every flow of one client address always takes the same output and the addresses spread
 * evenly when their low bits are. There is one ToDevice per distinct device.
 */
public final class LoadBalancerGraph {

    public static final String INPUT = "in";
    public static final String CLASSIFIER = "split";

    private LoadBalancerGraph() {}

    public static ProcessingGraph build(LoadBalancerConfig config) {
        HeaderClassifier split = new HeaderClassifier(CLASSIFIER);
        List<String> devices = new ArrayList<>();
        for (LoadBalancerConfig.Route r : config.routes()) {
            split.rule(
                    config.routeOnSource()
                            ? Match.of().ipv4Src(r.prefix())
                            : Match.of().ipv4Dst(r.prefix()));
            devices.add(r.device());
        }
        for (int b = 0; b < config.buckets(); b++) {
            String masked = dotted(b) + "%" + dotted(config.buckets() - 1);
            split.rule(
                    config.hashOnSource()
                            ? Match.of().ipv4Src(masked)
                            : Match.of().ipv4Dst(masked));
            devices.add(config.hashOutputs().get(b % config.hashOutputs().size()));
        }
        split.rule(Match.of());
        devices.add(config.defaultDevice());

        Map<String, ToDevice> outputs = new LinkedHashMap<>();
        GraphBuilder g = new GraphBuilder().connect(new FromDevice(INPUT, config.inDevice()), split);
        for (int row = 0; row < devices.size(); row++) {
            String d = devices.get(row);
            g.connect(split, row, outputs.computeIfAbsent(d, k -> new ToDevice(blockName(k), k)));
        }
        return g.build();
    }

    /** The name of the ToDevice block of {@code device}. */
    public static String blockName(String device) {
        return "to-" + device;
    }

    static String dotted(int v) {
        return (v >>> 24 & 0xff) + "." + (v >>> 16 & 0xff) + "." + (v >>> 8 & 0xff) + "." + (v & 0xff);
    }
}
