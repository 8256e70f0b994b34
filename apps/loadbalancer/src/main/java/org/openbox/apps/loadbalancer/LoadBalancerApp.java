package org.openbox.apps.loadbalancer;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Set;
import org.openbox.api.AppSettings;
import org.openbox.api.Application;
import org.openbox.api.Priority;
import org.openbox.api.Statement;

/**
 * The L3 load balancer application ("loadbalancer"): splits the traffic of one input device over
 * several output devices, by IPv4 prefix rules and, for what no prefix rule takes, by a flow
 * hash on the low bits of an address. Graph in {@link LoadBalancerGraph}, configuration in
 * {@link LoadBalancerConfig}.
 */
public class LoadBalancerApp extends Application {

    private static final Logger LOG = System.getLogger(LoadBalancerApp.class.getName());

    private LoadBalancerConfig config;

    /**
     * The application as the controller loads it: configured by {@link #configure}, or from
     * its properties file (see {@link LoadBalancerConfig#load()}) when used without a controller.
     */
    public LoadBalancerApp() {}

    public LoadBalancerApp(LoadBalancerConfig config) {
        this.config = config;
    }

    @Override
    public Set<String> settingKeys() {
        return LoadBalancerConfig.KEYS;
    }

    @Override
    public synchronized void configure(AppSettings settings) {
        config = LoadBalancerConfig.from(settings);
    }

    /** Last in a chain: it picks the output device. */
    @Override
    public int priority() {
        return Priority.LOW;
    }

    @Override
    public String name() {
        return "loadbalancer";
    }

    public synchronized LoadBalancerConfig config() {
        if (config == null) {
            config = LoadBalancerConfig.load();
        }
        return config;
    }

    @Override
    public List<Statement> statements() {
        LOG.log(
                Level.INFO,
                "loadbalancer: {0} routes, {1} hash buckets over {2}, default {3}",
                String.valueOf(config().routes().size()),
                String.valueOf(config().buckets()),
                config().hashOutputs(),
                config().defaultDevice());
        return List.of(new Statement(config().location(), LoadBalancerGraph.build(config())));
    }
}
