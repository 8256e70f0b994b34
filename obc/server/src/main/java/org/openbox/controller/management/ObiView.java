package org.openbox.controller.management;

import java.time.Instant;
import java.util.List;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.obi.ObiSession;

/** An OBI as listed by GET /api/obis. */
public record ObiView(long dpid, String state, String endpoint, String version, Instant firstSeen,
                      Instant lastSeen, Instant stateSince, int downCount, String graphStatus,
                      String lastError, List<String> apps, int blocks) {

    static ObiView of(ObiSession s, DeployedGraph g) {
        return new ObiView(s.dpid(), s.state().name(), s.client().base().toString(), s.version(), s.firstSeen(),
                s.lastSeen(), s.stateSince(), s.downCount(), s.graphStatus(), s.lastError(), g.apps(),
                g.graph().blocks().size());
    }
}
