package org.openbox.api.blocks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.openbox.api.match.Match;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.match.HeaderMatchParser;

/**
 * Classifies packets by header fields: output i for the first matching rule i (rules in
 * priority order); a packet that matches no rule is dropped.
 *
 * <p>Conveniences beside the generated {@link HeaderClassifier}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/HeaderClassifier.json.
 * <pre>new HeaderClassifier("fw")
 *     .rule(Match.of().ipv4Src("10.0.0.0/8").tcpDst(22))   // output 0
 *     .rule(Match.of())                                    // output 1: everything else</pre>
 * Each rule is parsed when added; a bad one throws BAD_HEADER_MATCH naming block and rule.
 */
public abstract class HeaderClassifierExtension extends ProcessingBlock {

    HeaderClassifierExtension(String name) {
        super(name);
    }

    /** Adds a rule; its output port is the number of rules added before it. */
    public HeaderClassifier rule(Match match) {
        ObjectNode json = match.toJson();
        parse(json, size("match"));
        list("match").add(json);
        return (HeaderClassifier) this;
    }

    /**
     * Performs the header lookups of the named downstream HeaderClassifier /
     * HeaderPayloadClassifier blocks (at most 15) in this block's own pass; a hint that
     * changes no result.
     */
    public HeaderClassifier fuse(String... blocks) {
        ArrayNode a = list("fuse");
        a.removeAll();
        for (String b : blocks) {
            a.add(b);
        }
        return (HeaderClassifier) this;
    }

    /** Number of rules (and outputs) so far. */
    public int rules() {
        return size("match");
    }

    private void parse(ObjectNode match, int index) {
        try {
            HeaderMatchParser.parse(match);
        } catch (ProtocolException e) {
            throw invalid(ErrorSubtype.BAD_HEADER_MATCH, "rule " + index + ": " + e.getMessage());
        }
    }

    @Override
    public void check() {
        requireRules("match", "rules");
    }
}
