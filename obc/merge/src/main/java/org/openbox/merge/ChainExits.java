package org.openbox.merge;

import java.util.Collection;

/**
 * Which output terminals of an application continue a service chain. An output terminal
 * leads into the next application unless it sends packets out of one of the application's
 * own input devices: that is a reply towards where the traffic came from (a web cache
 * answering its clients), not the chain's forward direction, and it stays an exit. The
 * merge, the naive concatenation and the controller's unmerged chain all join by this rule.
 */
public final class ChainExits {
    private ChainExits() {}

    /**
     * @param exitDevice   the output terminal's devname (ToDevice), or null (ToDump)
     * @param inputDevices the devnames of the same application's input terminals
     */
    public static boolean repliesToInput(String exitDevice, Collection<String> inputDevices) {
        return exitDevice != null && inputDevices.contains(exitDevice);
    }
}
