import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.core.CatalogueBlockInfo;
import org.openbox.merge.interpret.Interpreter;
import org.openbox.merge.interpret.Outcome;
import org.openbox.merge.interpret.SideEffect;
import org.openbox.protocol.graph.Graph;

/**
 * What an application's graph should do with a pcap, by the merge module's reference
 * interpreter (java.util.regex, block by block; not the OBI's engine), for
 * tests/system/rulesets.sh.
 *
 * <pre>java -cp obc/merge/target/classes:obc/merge/target/lib/* tests/system/RulesetReference.java \
 *     GRAPH.json PCAP [INPUT]</pre>
 *
 * Payload patterns with from/to are rewritten as anchored regexes first (see
 * boundedStarts). Every frame of PCAP (classic libpcap) enters at input terminal INPUT (default: the
 * first). One JSON line on stdout: {"packets", "out", "dropped", "alerts", "logs",
 * "alerts_by_block": {block: n}, "logs_by_block": {block: n}, "exits": {output
 * terminal: n}, "rule_hits": {classifier: [packets that left by rule i, ...]}}.
 */
public final class RulesetReference {
    public static void main(String[] args) throws Exception {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: RulesetReference GRAPH.json PCAP [INPUT]");
            System.exit(2);
        }
        ObjectMapper mapper = new ObjectMapper();
        JsonNode tree = mapper.readTree(Files.readAllBytes(Path.of(args[0])));
        boundedStarts(tree);
        Graph g = Graph.fromJson(tree);
        Interpreter in = Interpreter.forApp("app", g, new CatalogueBlockInfo(Catalogue.load()));
        String input = args.length == 3 ? args[2] : in.inputs().get(0);
        long packets = 0, out = 0, dropped = 0, alerts = 0, logs = 0;
        Map<String, Long> alertsBy = new TreeMap<>();
        Map<String, Long> logsBy = new TreeMap<>();
        Map<String, Long> exits = new TreeMap<>();
        Map<String, long[]> ruleHits = new TreeMap<>();
        try (InputStream s = Files.newInputStream(Path.of(args[1]))) {
            for (byte[] frame : (Iterable<byte[]>) () -> frames(s)) {
                packets++;
                Outcome o = in.run(input, frame);
                if (o.dropped()) {
                    dropped++;
                } else {
                    out++;
                    exits.merge(o.exit(), 1L, Long::sum);
                }
                for (Interpreter.Hit h : in.hits()) {
                    ruleHits.computeIfAbsent(h.block(), b -> new long[in.rulesOf(b).size()])[h.rule()]++;
                }
                for (SideEffect e : o.effects()) {
                    if (e.kind().equals("Alert")) {
                        alerts++;
                        alertsBy.merge(e.block(), 1L, Long::sum);
                    } else if (e.kind().equals("Log")) {
                        logs++;
                        logsBy.merge(e.block(), 1L, Long::sum);
                    }
                }
            }
        }
        System.out.println(mapper.writeValueAsString(Map.of("packets", packets, "out", out, "dropped", dropped,
                "alerts", alerts, "logs", logs, "alerts_by_block", alertsBy, "logs_by_block", logsBy,
                "exits", exits, "rule_hits", ruleHits)));
    }

    /**
     * The interpreter takes no from/to on payload patterns: a pattern whose match must start
     * at an offset in [from, to] of the scanned bytes becomes the same regex anchored behind
     * from..to bytes of anything (a literal quoted first).
     */
    private static void boundedStarts(JsonNode graph) {
        for (JsonNode b : graph.path("blocks")) {
            for (JsonNode m : b.path("config").path("match")) {
                for (JsonNode p : m.path("payload_match")) {
                    if (!(p instanceof ObjectNode o) || !(o.has("from") || o.has("to"))) continue;
                    String re = o.path("is_regex").asBoolean(true) ? o.path("pattern").asText()
                            : Pattern.quote(o.path("pattern").asText());
                    long from = o.path("from").asLong(0);
                    String to = o.has("to") ? Long.toString(o.path("to").asLong()) : "";
                    o.put("pattern", "^(?s:.){" + from + "," + to + "}(?:" + re + ")");
                    o.put("is_regex", true);
                    o.remove("from");
                    o.remove("to");
                }
            }
        }
    }

    /** The frames of a classic pcap stream (either byte order, micro- or nanosecond). */
    private static java.util.Iterator<byte[]> frames(InputStream raw) {
        DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(raw, 1 << 16));
        ByteOrder order;
        try {
            byte[] hdr = in.readNBytes(24);
            if (hdr.length != 24) throw new IOException("not a pcap file (short header)");
            int magic = ByteBuffer.wrap(hdr, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d) {
                order = ByteOrder.LITTLE_ENDIAN;
            } else if (Integer.reverseBytes(magic) == 0xa1b2c3d4 || Integer.reverseBytes(magic) == 0xa1b23c4d) {
                order = ByteOrder.BIG_ENDIAN;
            } else {
                throw new IOException("not a classic pcap file (magic " + Integer.toHexString(magic) + ")");
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return new java.util.Iterator<>() {
            byte[] next = read();

            private byte[] read() {
                try {
                    byte[] rec = in.readNBytes(16);
                    if (rec.length == 0) return null;
                    if (rec.length != 16) throw new EOFException("truncated record header");
                    int incl = ByteBuffer.wrap(rec, 8, 4).order(order).getInt();
                    if (incl < 0 || incl > 262144) throw new IOException("bad record length " + incl);
                    byte[] data = in.readNBytes(incl);
                    if (data.length != incl) throw new EOFException("truncated record");
                    return data;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public byte[] next() {
                byte[] r = next;
                next = read();
                return r;
            }
        };
    }

    private RulesetReference() {}

}
