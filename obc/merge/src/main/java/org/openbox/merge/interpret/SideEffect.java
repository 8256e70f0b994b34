package org.openbox.merge.interpret;

import java.util.List;
import org.openbox.merge.Origin;

/**
 * An alert or log raised on a packet.
 *
 * @param kind    "Alert" or "Log"
 * @param origins the application block(s) the raising block implements (one, for statics)
 * @param block   the raising block's name in the graph that ran
 * @param config  the raising block's config (message, severity, ...), as JSON text
 */
public record SideEffect(String kind, List<Origin> origins, String block, String config) {
    public SideEffect {
        origins = List.copyOf(origins);
    }

    /** The same effect without the graph-specific block name (for comparing graphs). */
    public SideEffect anonymous() {
        return new SideEffect(kind, origins, "", config);
    }
}
