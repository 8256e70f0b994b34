package org.openbox.controller.aggregate;

import java.util.List;

/**
 * Composes the graphs of the applications that apply to one OBI (already ordered by
 * priority, highest first) into the one graph the OBI runs, as a service chain.
 */
public interface GraphComposer {
    Composed compose(List<AppPart> parts);
}
