package org.openbox.merge;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.openbox.protocol.graph.Graph;

/** Compact graph literals for tests: single quotes allowed. */
final class G {
    private static final ObjectMapper M = new ObjectMapper().configure(JsonParser.Feature.ALLOW_SINGLE_QUOTES, true);

    private G() {}

    static Graph of(String json) {
        try {
            return Graph.fromJson(M.readTree(json));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** FromDevice eth0 -> classifier 'c' (type, config) with outputs to the given blocks. */
    static String block(String type, String name, String config) {
        return "{'type':'" + type + "','name':'" + name + "','config':" + config + "}";
    }

    static String conn(String src, int port, String dst) {
        return "{'src':'" + src + "','src_port':" + port + ",'dst':'" + dst + "','dst_port':0}";
    }
}
