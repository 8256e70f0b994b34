package org.openbox.protocol.graph;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.match.HeaderMatchParser;

/**
 * The shape checks of a graph, checks 6-9 of protocol/README.md, each over the whole graph
 * before the next: block objects (BAD_BLOCK), connector objects (BAD_CONNECTOR), header matches
 * of HeaderClassifier / HeaderPayloadClassifier (BAD_HEADER_MATCH), then their payload matches
 * (BAD_PAYLOAD_MATCH). A {@code blocks} or {@code connectors} node that is absent or not an
 * array is skipped here (the message codec reports it) and yields a null list.
 */
public record GraphShape(List<Block> blocks, List<Connector> connectors) {
    public static final String HEADER_CLASSIFIER = "HeaderClassifier";
    public static final String HEADER_PAYLOAD_CLASSIFIER = "HeaderPayloadClassifier";
    private static final long MAX_PORT = Integer.MAX_VALUE;

    public static GraphShape check(JsonNode blocksNode, JsonNode connectorsNode) {
        List<Block> blocks = null;
        List<Connector> connectors = null;
        if (blocksNode != null && blocksNode.isArray()) {
            blocks = readBlocks(blocksNode);
        }
        if (connectorsNode != null && connectorsNode.isArray()) {
            connectors = readConnectors(connectorsNode);
        }
        if (blocks != null) {
            for (Block b : blocks) {
                checkHeaderMatches(b);
            }
            for (Block b : blocks) {
                checkPayloadMatches(b);
            }
        }
        return new GraphShape(blocks, connectors);
    }

    private static List<Block> readBlocks(JsonNode arr) {
        List<Block> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < arr.size(); i++) {
            JsonNode b = arr.get(i);
            String where = "blocks[" + i + "]";
            if (!b.isObject()) {
                throw badBlock(where + " is not an object");
            }
            String type = nonEmptyString(b, "type", where, ErrorSubtype.BAD_BLOCK);
            String name = nonEmptyString(b, "name", where, ErrorSubtype.BAD_BLOCK);
            where = "block '" + name + "'";
            JsonNode config = b.get("config");
            if (config != null && !config.isObject()) {
                throw badBlock(where + ": 'config' must be an object");
            }
            if (!names.add(name)) {
                throw badBlock(where + ": name used by another block");
            }
            out.add(new Block(type, name, config == null ? null : ((ObjectNode) config).deepCopy()));
        }
        return out;
    }

    private static List<Connector> readConnectors(JsonNode arr) {
        List<Connector> out = new ArrayList<>();
        for (int i = 0; i < arr.size(); i++) {
            JsonNode c = arr.get(i);
            String where = "connectors[" + i + "]";
            if (!c.isObject()) {
                throw new ProtocolException(ErrorSubtype.BAD_CONNECTOR, where + " is not an object");
            }
            String src = nonEmptyString(c, "src", where, ErrorSubtype.BAD_CONNECTOR);
            int srcPort = port(c, "src_port", where);
            String dst = nonEmptyString(c, "dst", where, ErrorSubtype.BAD_CONNECTOR);
            int dstPort = port(c, "dst_port", where);
            out.add(new Connector(src, srcPort, dst, dstPort));
        }
        return out;
    }

    private static int port(JsonNode c, String field, String where) {
        JsonNode p = c.get(field);
        if (p == null
                || !p.isIntegralNumber()
                || p.bigIntegerValue().signum() < 0
                || p.bigIntegerValue().compareTo(java.math.BigInteger.valueOf(MAX_PORT)) > 0) {
            throw new ProtocolException(
                    ErrorSubtype.BAD_CONNECTOR,
                    where + ": '" + field + "' must be an integer in [0, 2^31), got " + (p == null ? "nothing" : p));
        }
        return p.intValue();
    }

    private static String nonEmptyString(JsonNode o, String field, String where, ErrorSubtype subtype) {
        JsonNode v = o.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new ProtocolException(subtype, where + ": '" + field + "' must be a non-empty string");
        }
        return v.asText();
    }

    private static ProtocolException badBlock(String msg) {
        return new ProtocolException(ErrorSubtype.BAD_BLOCK, msg);
    }

    /** The rule array of a (Header|HeaderPayload)Classifier, or null when the block has none. */
    private static JsonNode rules(Block b) {
        if (b.config() == null) {
            return null;
        }
        JsonNode match = b.config().get("match");
        if (match == null) {
            return null;
        }
        if (!match.isArray()) {
            throw headerError(b, "'match' must be an array of rules");
        }
        for (int i = 0; i < match.size(); i++) {
            if (!match.get(i).isObject()) {
                throw headerError(b, "match[" + i + "] must be an object");
            }
        }
        return match;
    }

    private static void checkHeaderMatches(Block b) {
        boolean hc = b.type().equals(HEADER_CLASSIFIER);
        boolean hpc = b.type().equals(HEADER_PAYLOAD_CLASSIFIER);
        if (!hc && !hpc) {
            return;
        }
        JsonNode rules = rules(b);
        if (rules == null) {
            return;
        }
        for (int i = 0; i < rules.size(); i++) {
            JsonNode m = hc ? rules.get(i) : rules.get(i).get("header_match");
            if (m == null) {
                continue; // a HeaderPayloadMatch without header_match matches any header
            }
            try {
                HeaderMatchParser.parse(m);
            } catch (ProtocolException e) {
                throw headerError(b, "match[" + i + "]: " + e.getMessage());
            }
        }
    }

    private static ProtocolException headerError(Block b, String msg) {
        return new ProtocolException(ErrorSubtype.BAD_HEADER_MATCH, "block '" + b.name() + "': " + msg);
    }

    private static void checkPayloadMatches(Block b) {
        if (!b.type().equals(HEADER_PAYLOAD_CLASSIFIER)) {
            return;
        }
        JsonNode rules = rules(b);
        if (rules == null) {
            return;
        }
        for (int i = 0; i < rules.size(); i++) {
            JsonNode pm = rules.get(i).get("payload_match");
            String where = "block '" + b.name() + "': match[" + i + "].payload_match";
            if (pm == null) {
                continue; // no payload condition
            }
            if (!pm.isArray()) {
                throw payloadError(where + " must be an array of patterns");
            }
            for (int j = 0; j < pm.size(); j++) {
                checkPattern(pm.get(j), where + "[" + j + "]");
            }
        }
    }

    private static void checkPattern(JsonNode p, String where) {
        if (!p.isObject()) {
            throw payloadError(where + " must be an object");
        }
        JsonNode pattern = p.get("pattern");
        if (pattern == null || !pattern.isTextual()) {
            throw payloadError(where + ": 'pattern' must be a string");
        }
        JsonNode isRegex = p.get("is_regex");
        if (isRegex != null && !isRegex.isBoolean()) {
            throw payloadError(where + ": 'is_regex' must be a boolean");
        }
        Long from = offset(p, "from", where);
        Long to = offset(p, "to", where);
        if (from != null && to != null && from > to) {
            throw payloadError(where + ": 'from' " + from + " is greater than 'to' " + to);
        }
    }

    private static Long offset(JsonNode p, String field, String where) {
        JsonNode v = p.get(field);
        if (v == null) {
            return null;
        }
        if (!v.isIntegralNumber()
                || v.bigIntegerValue().signum() < 0
                || v.bigIntegerValue().compareTo(java.math.BigInteger.valueOf(MAX_PORT)) > 0) {
            throw payloadError(where + ": '" + field + "' must be an integer in [0, 2^31), got " + v);
        }
        return v.longValue();
    }

    private static ProtocolException payloadError(String msg) {
        return new ProtocolException(ErrorSubtype.BAD_PAYLOAD_MATCH, msg);
    }
}
