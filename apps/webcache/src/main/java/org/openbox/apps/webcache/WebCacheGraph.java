package org.openbox.apps.webcache;

import org.openbox.api.GraphBuilder;
import org.openbox.api.ProcessingGraph;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderPayloadClassifier;
import org.openbox.api.blocks.HttpCacheResponder;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;
import org.openbox.api.match.PayloadPattern;
import org.openbox.catalogue.Catalogue;

/**
 * The web cache's processing graph:
 * <pre>
 * FromDevice "in" -> HeaderPayloadClassifier "http"
 *     rows 0..k-1 (tcp dst port [to each site address], payload "GET " at offset 0) -> HttpCacheResponder "cache"
 *         [0] responses  -> ToDevice "back" (client side; the input device by default)
 *         [1] the rest   -> ToDevice "out"
 *     row k (everything else) -> ToDevice "out"
 * </pre>
 * Only GET requests to the sites reach the responder; when the back device is the output
 * device, both outputs share the one ToDevice "out".
 */
public final class WebCacheGraph {

    public static final String INPUT = "in";
    public static final String CLASSIFIER = "http";
    public static final String RESPONDER = "cache";
    public static final String OUTPUT = "out";
    public static final String BACK = "back";

    /** What a candidate request's TCP payload starts with. */
    static final PayloadPattern GET = PayloadPattern.literal("GET ").between(0, 0);

    private WebCacheGraph() {}

    /** Builds and validates the graph against the packaged catalogue. */
    public static ProcessingGraph build(WebCacheConfig config) {
        return build(config, Catalogue.load());
    }

    public static ProcessingGraph build(WebCacheConfig config, Catalogue catalogue) {
        FromDevice in = new FromDevice(INPUT, config.inDevice());
        ToDevice out = new ToDevice(OUTPUT, config.outDevice());
        ToDevice back = config.backDevice().equals(config.outDevice()) ? out : new ToDevice(BACK, config.backDevice());
        HeaderPayloadClassifier http = new HeaderPayloadClassifier(CLASSIFIER);
        if (config.addresses().isEmpty()) {
            http.rule(Match.of().tcpDst(config.port()), GET);
        }
        for (String a : config.addresses()) {
            http.rule(Match.of().ipv4Dst(a).tcpDst(config.port()), GET);
        }
        int webRows = http.rules();
        http.rule(Match.of());
        HttpCacheResponder cache = new HttpCacheResponder(RESPONDER).mss(config.mss());
        config.entries().forEach(e -> e.addTo(cache));
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
