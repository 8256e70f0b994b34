package org.openbox.merge.core;

import java.math.BigInteger;
import org.openbox.protocol.match.MatchField;

/** What a classifier rule looks at in a packet: header fields and payload text. */
public interface FieldSource {
    /** The field's value, or null when the packet does not have that header. */
    BigInteger field(MatchField f);

    /** The L4 payload (after the recognised layers) as ISO-8859-1 text. */
    String payloadText();

    /** The whole frame as ISO-8859-1 text. */
    String packetText();
}
