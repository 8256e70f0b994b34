package org.openbox.apps.firewall;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.openbox.api.GraphBuilder;
import org.openbox.api.ProcessingGraph;
import org.openbox.api.blocks.Alert;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderClassifier;
import org.openbox.api.blocks.ProcessingBlock;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;
import org.openbox.protocol.match.MatchField;

/**
 * The firewall's processing graph for a policy:
 * <pre>
 * FromDevice "in" -> HeaderClassifier "rules" --allow rows--> ToDevice "out"
 *                                              --drop rows---> Discard "drop"
 *                                              --alert rows--> Alert "alert-N" -> ToDevice "out"
 * </pre>
 * The classifier has one row per header match of each rule, in policy order, then one
 * catch-all row (an empty match) for the default action. All rows of one rule lead to the
 * same block: allow and drop rows share the one ToDevice and Discard, the rows of alert rule
 * N share its Alert block "alert-N", which carries the rule's message.
 *
 * @param graph      the validated graph
 * @param rowsOfRule classifier rows (= output ports) of each rule, by rule index; the last
 *                   row of the classifier is the default row
 */
public record FirewallGraph(ProcessingGraph graph, List<List<Integer>> rowsOfRule) {

    public static final String INPUT = "in";
    public static final String CLASSIFIER = "rules";
    public static final String OUTPUT = "out";
    public static final String DROP = "drop";
    public static final String ALERT_PREFIX = "alert-";

    public FirewallGraph {
        rowsOfRule = Collections.unmodifiableList(rowsOfRule);
    }

    /** Builds and validates the graph of {@code policy} with the devices and severity of {@code config}. */
    public static FirewallGraph build(Policy policy, FirewallConfig config) {
        FromDevice in = new FromDevice(INPUT, config.inDevice());
        ToDevice out = new ToDevice(OUTPUT, config.outDevice());
        Discard drop = new Discard(DROP);
        HeaderClassifier rules = new HeaderClassifier(CLASSIFIER);
        GraphBuilder g = new GraphBuilder().connect(in, rules);
        List<List<Integer>> rowsOfRule = new ArrayList<>();
        List<ProcessingBlock> targets = new ArrayList<>();
        for (FirewallRule r : policy.rules()) {
            ProcessingBlock target =
                    switch (r.action()) {
                        case ALLOW -> out;
                        case DROP -> drop;
                        case ALERT -> {
                            Alert a = new Alert(ALERT_PREFIX + r.index()).alert(r.message(), config.alertSeverity());
                            g.connect(a, out);
                            yield a;
                        }
                    };
            List<Integer> rows = new ArrayList<>();
            for (Map<String, String> m : r.matches()) {
                rows.add(rules.rules());
                rules.rule(match(m, r));
                targets.add(target);
            }
            rowsOfRule.add(List.copyOf(rows));
        }
        rules.rule(Match.of());
        targets.add(policy.defaultAction() == Action.DROP ? drop : out);
        for (int row = 0; row < targets.size(); row++) {
            g.connect(rules, row, targets.get(row));
        }
        return new FirewallGraph(g.build(), rowsOfRule);
    }

    /** Number of classifier rows, the default row included. */
    public int rows() {
        return rowsOfRule.stream().mapToInt(List::size).sum() + 1;
    }

    private static Match match(Map<String, String> fields, FirewallRule r) {
        Match m = Match.of();
        fields.forEach((name, value) -> m.field(
                MatchField.byName(name)
                        .orElseThrow(() -> new IllegalArgumentException(
                                "rule at line " + r.line() + ": unknown header field " + name)),
                value));
        return m;
    }
}
