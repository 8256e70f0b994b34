package org.openbox.apps.webcache;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Set;
import org.openbox.api.AppSettings;
import org.openbox.api.Application;
import org.openbox.api.Priority;
import org.openbox.api.Statement;

/**
 * The web cache application ("webcache"): HTTP GET requests for configured objects on the
 * configured sites are answered by the network itself and never reach the server; all other
 * traffic passes untouched. The answering is done by the catalogue block HttpCacheResponder; the
 * graph is described in {@link WebCacheGraph}, the configuration in {@link WebCacheConfig}.
 */
public class WebCacheApp extends Application {

    private static final Logger LOG = System.getLogger(WebCacheApp.class.getName());

    private WebCacheConfig config;

    /**
     * The application as the controller loads it: configured by {@link #configure}, or from
     * its properties file (see {@link WebCacheConfig#load()}) when used without a controller.
     */
    public WebCacheApp() {}

    public WebCacheApp(WebCacheConfig config) {
        this.config = config;
    }

    @Override
    public Set<String> settingKeys() {
        return WebCacheConfig.KEYS;
    }

    @Override
    public synchronized void configure(AppSettings settings) {
        config = WebCacheConfig.from(settings);
    }

    /** After the firewall and the IPS, before the load balancer. */
    @Override
    public int priority() {
        return Priority.MEDIUM;
    }

    @Override
    public String name() {
        return "webcache";
    }

    public synchronized WebCacheConfig config() {
        if (config == null) {
            config = WebCacheConfig.load();
        }
        return config;
    }

    @Override
    public List<Statement> statements() {
        LOG.log(
                Level.INFO,
                "webcache: {0} objects for {1}, responses to device {2}",
                String.valueOf(config().objects().size()),
                config().sites().isEmpty() ? "any host" : String.join(", ", config().sites()),
                config().backDevice());
        return List.of(new Statement(config().location(), WebCacheGraph.build(config())));
    }
}
