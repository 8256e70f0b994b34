package org.openbox.controller.management;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.openbox.merge.Origin;

/**
 * GET /api/obis/{dpid}/graph: the merged graph (graph-file format), for every merged block
 * the (application, block) pairs it implements, the applications in priority order, the
 * composer's report, the composition used ("chain", or e.g. "distinct [web | dns] then ids")
 * and the last composition failure, if any. For operators only.
 */
public record GraphView(
        long dpid,
        JsonNode graph,
        Map<String, List<Origin>> provenance,
        List<String> apps,
        String report,
        String composition,
        String failure) {}
