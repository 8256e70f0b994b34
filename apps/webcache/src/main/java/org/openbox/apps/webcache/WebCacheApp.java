package org.openbox.apps.webcache;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
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

    private final WebCacheConfig config;

    /** The web cache configured from its properties file (see {@link WebCacheConfig#load()}). */
    public WebCacheApp() {
        this(WebCacheConfig.load());
    }

    public WebCacheApp(WebCacheConfig config) {
        this.config = config;
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

    public WebCacheConfig config() {
        return config;
    }

    @Override
    public List<Statement> statements() {
        LOG.log(Level.INFO, "webcache: {0} objects for {1}, responses to device {2}",
                String.valueOf(config.objects().size()),
                config.sites().isEmpty() ? "any host" : String.join(", ", config.sites()), config.backDevice());
        return List.of(new Statement(config.location(), WebCacheGraph.build(config)));
    }
}
