package org.openbox.merge.interpret;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * What a graph did with one packet: the output terminal it left by (null when dropped), the
 * packet bytes at that point, and the alerts and logs it raised, in order.
 */
public record Outcome(String exit, byte[] packet, List<SideEffect> effects) {
    public Outcome {
        effects = List.copyOf(effects);
    }

    public boolean dropped() {
        return exit == null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Outcome x
                && java.util.Objects.equals(exit, x.exit)
                && Arrays.equals(packet, x.packet)
                && effects.equals(x.effects);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(exit, Arrays.hashCode(packet), effects);
    }

    @Override
    public String toString() {
        return (exit == null ? "dropped" : "exit " + exit) + " packet="
                + HexFormat.of().formatHex(packet) + " effects=" + effects;
    }
}
