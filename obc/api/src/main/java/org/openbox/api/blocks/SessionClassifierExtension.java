package org.openbox.api.blocks;

import org.openbox.api.match.SessionMatch;

/**
 * Classifies packets by values kept in the session storage (written by SessionStore).
 * Output 0: no rule matched; output i+1: rule i matched (first match wins).
 *
 * <p>Conveniences beside the generated {@link SessionClassifier}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/SessionClassifier.json.
 * <pre>new SessionClassifier("known").rule(SessionMatch.field("client", MatchField.IPV4_DST))  // output 1</pre>
 */
public abstract class SessionClassifierExtension extends ProcessingBlock {

    SessionClassifierExtension(String name) {
        super(name);
    }

    /** Adds a rule; its output port is one more than the number of rules added before it. */
    public SessionClassifier rule(SessionMatch match) {
        list("match").add(match.toJson());
        return (SessionClassifier) this;
    }
}
