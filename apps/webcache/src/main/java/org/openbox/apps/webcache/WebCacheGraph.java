package org.openbox.apps.webcache;

import org.openbox.api.GraphBuilder;
import org.openbox.api.ProcessingGraph;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderClassifier;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;
import org.openbox.catalogue.Catalogue;

/**
 * The web cache's processing graph:
 * <pre>
 * FromDevice "in" -> HeaderClassifier "http"
 *     rows 0..k-1 (tcp dst port 80 [to each site address]) -> HttpCacheResponder "cache"
 *         [0] responses  -> ToDevice "back" (client side; the input device by default)
 *         [1] the rest   -> ToDevice "out"
 *     row k (everything else) -> ToDevice "out"
 * </pre>
 * When the back device is the output device, both outputs share the one ToDevice "out".
 */
public final class WebCacheGraph {

    public static final String INPUT = "in";
    public static final String CLASSIFIER = "http";
    public static final String RESPONDER = "cache";
    public static final String OUTPUT = "out";
    public static final String BACK = "back";

    private WebCacheGraph() {
    }

    /** Builds and validates the graph against the packaged catalogue plus the responder's descriptor. */
    public static ProcessingGraph build(WebCacheConfig config) {
        return build(config, HttpCacheResponder.withDescriptor(Catalogue.load()));
    }

    public static ProcessingGraph build(WebCacheConfig config, Catalogue catalogue) {
        FromDevice in = new FromDevice(INPUT, config.inDevice());
        ToDevice out = new ToDevice(OUTPUT, config.outDevice());
        ToDevice back = config.backDevice().equals(config.outDevice()) ? out : new ToDevice(BACK, config.backDevice());
        HeaderClassifier http = new HeaderClassifier(CLASSIFIER);
        if (config.addresses().isEmpty()) {
            http.rule(Match.of().tcpDst(config.port()));
        }
        for (String a : config.addresses()) {
            http.rule(Match.of().ipv4Dst(a).tcpDst(config.port()));
        }
        int webRows = http.rules();
        http.rule(Match.of());
        HttpCacheResponder cache = new HttpCacheResponder(RESPONDER).mss(config.mss());
        config.entries().forEach(cache::entry);
        GraphBuilder g = new GraphBuilder(catalogue).connect(in, http);
        for (int row = 0; row < webRows; row++) {
            g.connect(http, row, cache);
        }
        return g.connect(http, webRows, out)
                .connect(cache, 0, back)
                .connect(cache, 1, out)
                .build();
    }
}
