package org.openbox.controller.management;

import java.time.Instant;
import java.util.List;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.obi.ObiSession;

/**
 * An OBI as listed by GET /api/obis; {@code modules}: custom modules installed there,
 * {@code refusedModules}: module -> why the OBI refused it, {@code excludedApps}:
 * applications left out of its graph because of that.
 */
public record ObiView(
        long dpid,
        String state,
        String endpoint,
        String version,
        Instant firstSeen,
        Instant lastSeen,
        Instant stateSince,
        int downCount,
        String graphStatus,
        String lastError,
        List<String> apps,
        int blocks,
        List<String> modules,
        java.util.Map<String, String> refusedModules,
        java.util.Set<String> excludedApps,
        java.util.Map<String, String> fallbacks) {

    static ObiView of(ObiSession s, DeployedGraph g, java.util.Set<String> excluded) {
        return new ObiView(
                s.dpid(),
                s.state().name(),
                s.client().base().toString(),
                s.version(),
                s.firstSeen(),
                s.lastSeen(),
                s.stateSince(),
                s.downCount(),
                s.graphStatus(),
                s.lastError(),
                g.apps(),
                g.graph().blocks().size(),
                s.installedModules().stream().sorted().toList(),
                s.failedModules(),
                excluded,
                g.fallbacks());
    }
}
