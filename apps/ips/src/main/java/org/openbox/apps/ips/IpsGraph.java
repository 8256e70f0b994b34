package org.openbox.apps.ips;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openbox.api.GraphBuilder;
import org.openbox.api.ProcessingGraph;
import org.openbox.api.blocks.Alert;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderPayloadClassifier;
import org.openbox.api.blocks.Log;
import org.openbox.api.blocks.ProcessingBlock;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;
import org.openbox.api.match.PayloadPattern;
import org.openbox.protocol.match.MatchField;

/**
 * The IPS's processing graph for a set of Snort rules:
 * <pre>
 * FromDevice "in" -> HeaderPayloadClassifier "signatures"
 *     rows of alert rule N  -> Alert "sid-N" -> ToDevice "out"
 *     rows of drop rule N   -> Alert "sid-N" -> Discard "drop"     (reject too; sdrop: no alert)
 *     rows of log rule N    -> Log "sid-N"   -> ToDevice "out"
 *     rows of pass rules    -> ToDevice "out"
 *     last row (empty match, no pattern) -> ToDevice "out"
 * </pre>
 * The classifier has one row per (rule, header alternative) in file order, each with all of
 * the rule's payload regexes, so the first matching rule decides. Alert and log messages are
 * {@code "[sid:N] msg"} so the application can tell the rule from the message alone; the
 * severity is 5 - Snort priority (priority 1 -> 4, ..., 4 -> 1), 2 when the rule has none.
 * Without {@code inline}, drop rules alert and forward like alert rules.
 *
 * @param rowsOfRule classifier rows (output ports) of each rule, in rule order
 */
public record IpsGraph(ProcessingGraph graph, List<List<Integer>> rowsOfRule) {

    public static final String INPUT = "in";
    public static final String CLASSIFIER = "signatures";
    public static final String OUTPUT = "out";
    public static final String DROP = "drop";
    public static final int DEFAULT_SEVERITY = 2;
    private static final Pattern SID = Pattern.compile("^\\[sid:(\\d+)]");

    public IpsGraph {
        rowsOfRule = Collections.unmodifiableList(rowsOfRule);
    }

    public static IpsGraph build(List<SnortRule> rules, IpsConfig config) {
        FromDevice in = new FromDevice(INPUT, config.inDevice());
        ToDevice out = new ToDevice(OUTPUT, config.outDevice());
        Discard drop = new Discard(DROP);
        HeaderPayloadClassifier classifier = new HeaderPayloadClassifier(CLASSIFIER);
        GraphBuilder g = new GraphBuilder().connect(in, classifier);
        List<ProcessingBlock> targets = new ArrayList<>();
        List<List<Integer>> rowsOfRule = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (SnortRule r : rules) {
            ProcessingBlock target = branch(r, config, g, out, drop, names);
            PayloadPattern[] payload =
                    r.patterns().stream().map(PayloadPattern::regex).toArray(PayloadPattern[]::new);
            List<Integer> rows = new ArrayList<>();
            for (Map<String, String> header : r.headers()) {
                rows.add(classifier.rules());
                classifier.rule(match(header, r), payload);
                targets.add(target);
            }
            rowsOfRule.add(List.copyOf(rows));
        }
        classifier.rule(Match.of());
        targets.add(out);
        for (int row = 0; row < targets.size(); row++) {
            g.connect(classifier, row, targets.get(row));
        }
        return new IpsGraph(g.build(), rowsOfRule);
    }

    /** The block the rows of {@code r} lead to, created and connected downstream when new. */
    private static ProcessingBlock branch(
            SnortRule r, IpsConfig config, GraphBuilder g, ToDevice out, Discard drop, Set<String> names) {
        boolean blocks = config.inline() && r.blocks();
        String message = message(r);
        int severity = severity(r);
        switch (r.action()) {
            case "pass" -> {
                return out;
            }
            case "sdrop" -> {
                return blocks ? drop : out;
            }
            case "log" -> {
                Log log = new Log(blockName(r, names), message).severity(severity);
                if (config.attachPacket()) {
                    log.attachPacket(true).packetSize(config.packetSize());
                }
                g.connect(log, out);
                return log;
            }
            default -> { // alert, drop, reject
                Alert alert = new Alert(blockName(r, names)).alert(message, severity);
                if (config.attachPacket()) {
                    alert.attachPacket(true).packetSize(config.packetSize());
                }
                g.connect(alert, blocks ? drop : out);
                return alert;
            }
        }
    }

    /** Whether rule {@code r} gets a block of its own that reports (an Alert or a Log block). */
    public static boolean reports(SnortRule r) {
        return !r.action().equals("pass") && !r.action().equals("sdrop");
    }

    /** "sid-N", or "sid-N-line-L" when another rule already has sid N. */
    private static String blockName(SnortRule r, Set<String> names) {
        String name = "sid-" + r.sid();
        if (!names.add(name)) {
            name = name + "-line-" + r.line();
            names.add(name);
        }
        return name;
    }

    /** The alert text of a rule: "[sid:N] msg". */
    public static String message(SnortRule r) {
        return "[sid:" + r.sid() + "] " + r.msg();
    }

    /** The sid at the start of an alert text written by {@link #message}, or -1. */
    public static long sidOf(String message) {
        Matcher m = SID.matcher(message == null ? "" : message);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** Alert severity (1..5, 5 highest) for Snort priority (1 highest): 5 - priority, 2 when unset. */
    public static int severity(SnortRule r) {
        if (r.priority() <= 0) {
            return DEFAULT_SEVERITY;
        }
        return Math.max(1, Math.min(5, 5 - r.priority()));
    }

    /** Number of classifier rows, the final pass-everything row included. */
    public int rows() {
        return rowsOfRule.stream().mapToInt(List::size).sum() + 1;
    }

    private static Match match(Map<String, String> fields, SnortRule r) {
        Match m = Match.of();
        fields.forEach((name, value) -> m.field(
                MatchField.byName(name)
                        .orElseThrow(() -> new IllegalArgumentException(
                                "rule at line " + r.line() + ": unknown header field " + name)),
                value));
        return m;
    }
}
