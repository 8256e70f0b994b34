package org.openbox.api.blocks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.openbox.api.match.Match;
import org.openbox.api.match.PayloadPattern;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;

/**
 * Classifies packets by header fields and payload patterns together: output i for the first
 * rule i whose header match and every payload pattern match; a packet that matches no rule
 * is dropped.
 *
 * <p>Conveniences beside the generated {@link HeaderPayloadClassifier}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/HeaderPayloadClassifier.json.
 * <pre>new HeaderPayloadClassifier("ips")
 *     .rule(Match.of().tcpDst(80), PayloadPattern.regex("(?i)union\\s+select"))   // output 0
 *     .rule(Match.of())                                                            // output 1</pre>
 * Header matches are parsed and regular expressions compiled (java.util.regex, a first check)
 * when a rule is added; a bad one throws naming block and rule.
 */
public abstract class HeaderPayloadClassifierExtension extends ProcessingBlock {

    HeaderPayloadClassifierExtension(String name) {
        super(name);
    }

    /** Adds a rule; its output port is the number of rules added before it. */
    public HeaderPayloadClassifier rule(Match header, PayloadPattern... payload) {
        int index = size("match");
        try {
            header.parse();
        } catch (ProtocolException e) {
            throw invalid(ErrorSubtype.BAD_HEADER_MATCH, "rule " + index + ": " + e.getMessage());
        }
        ObjectNode rule = JsonNodeFactory.instance.objectNode().put("type", "HeaderPayloadMatch");
        rule.set("header_match", header.toJson());
        ArrayNode patterns = rule.putArray("payload_match");
        for (int i = 0; i < payload.length; i++) {
            PayloadPattern p = payload[i];
            String where = "rule " + index + " payload pattern " + i;
            if (p.regex()) {
                requireRegex(p.pattern(), where, ErrorSubtype.BAD_PAYLOAD_MATCH);
            }
            if (p.from() != null && p.to() != null && p.from() > p.to()) {
                throw invalid(ErrorSubtype.BAD_PAYLOAD_MATCH, where + ": from > to");
            }
            patterns.add(p.toJson());
        }
        list("match").add(rule);
        return (HeaderPayloadClassifier) this;
    }

    /** A rule on the payload only. */
    public HeaderPayloadClassifier rule(PayloadPattern... payload) {
        return rule(Match.of(), payload);
    }

    /** Number of rules (and outputs) so far. */
    public int rules() {
        return size("match");
    }

    @Override
    public void check() {
        requireRules("match", "rules");
    }
}
