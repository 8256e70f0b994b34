package org.openbox.controller.aggregate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.openbox.merge.Provenance;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * Small graphs an OBI runs in place of an application that cannot run, or when no
 * application runs there, built from that application's own graph so they use the same
 * devices: its input terminals (FromDevice, FromDump, same names and configs) followed by
 * <ul>
 * <li>{@link #drop}: a Discard {@value #DROP} (its count says what was dropped);</li>
 * <li>{@link #dropClass}: a HeaderClassifier {@value #CLASS} with the traffic class and a
 *     match-all rule: the class to the Discard, the rest to the graph's output terminal;</li>
 * <li>{@link #pass}: the graph's output terminal (the first ToDevice / ToDump that does not
 *     reply on an input's own device).</li>
 * </ul>
 * Each returns null when the graph has no input terminal (or, for pass and dropClass, no
 * output terminal), so the caller falls back to something else.
 */
public final class FailSafeGraphs {

    static final String DROP = "failsafe-drop";
    static final String CLASS = "failsafe-class";
    private static final Set<String> INPUTS = Set.of("FromDevice", "FromDump");
    private static final Set<String> OUTPUTS = Set.of("ToDevice", "ToDump");

    private FailSafeGraphs() {}

    public static Graph drop(Graph g) {
        List<Block> inputs = inputs(g);
        if (inputs.isEmpty()) return null;
        List<Block> blocks = new ArrayList<>(inputs);
        blocks.add(new Block("Discard", unique(g, DROP), JsonNodeFactory.instance.objectNode()));
        List<Connector> connectors = inputs.stream()
                .map(b ->
                        new Connector(b.name(), 0, blocks.get(blocks.size() - 1).name(), 0))
                .toList();
        return new Graph(List.copyOf(blocks), connectors);
    }

    public static Graph pass(Graph g) {
        List<Block> inputs = inputs(g);
        Block out = output(g, inputs);
        if (inputs.isEmpty() || out == null) return null;
        List<Block> blocks = new ArrayList<>(inputs);
        blocks.add(out);
        return new Graph(
                List.copyOf(blocks),
                inputs.stream()
                        .map(b -> new Connector(b.name(), 0, out.name(), 0))
                        .toList());
    }

    public static Graph dropClass(Graph g, ObjectNode trafficClass) {
        List<Block> inputs = inputs(g);
        Block out = output(g, inputs);
        if (inputs.isEmpty() || out == null) return null;
        ObjectNode config = JsonNodeFactory.instance.objectNode();
        config.putArray("match").add(trafficClass.deepCopy()).addObject();
        String cls = unique(g, CLASS);
        String drop = unique(g, DROP);
        List<Block> blocks = new ArrayList<>(inputs);
        blocks.add(new Block("HeaderClassifier", cls, config));
        blocks.add(new Block("Discard", drop, JsonNodeFactory.instance.objectNode()));
        blocks.add(out);
        List<Connector> connectors = new ArrayList<>();
        inputs.forEach(b -> connectors.add(new Connector(b.name(), 0, cls, 0)));
        connectors.add(new Connector(cls, 0, drop, 0));
        connectors.add(new Connector(cls, 1, out.name(), 0));
        return new Graph(List.copyOf(blocks), List.copyOf(connectors));
    }

    /** Provenance of a fail-safe graph: every block belongs to {@code app}. */
    static Provenance originsOf(String app, Graph g) {
        return Provenance.ofApplication(
                app, g.blocks().stream().map(Block::name).toList());
    }

    private static List<Block> inputs(Graph g) {
        return g.blocks().stream().filter(b -> INPUTS.contains(b.type())).toList();
    }

    private static Block output(Graph g, List<Block> inputs) {
        List<String> inDevices = inputs.stream()
                .map(FailSafeGraphs::devname)
                .filter(Objects::nonNull)
                .toList();
        List<Block> outs =
                g.blocks().stream().filter(b -> OUTPUTS.contains(b.type())).toList();
        return outs.stream()
                .filter(b -> !inDevices.contains(devname(b)))
                .findFirst()
                .orElse(outs.isEmpty() ? null : outs.get(0));
    }

    private static String devname(Block b) {
        JsonNode d = b.config() == null ? null : b.config().get("devname");
        return d == null ? null : d.asText();
    }

    private static String unique(Graph g, String base) {
        Set<String> names =
                new java.util.HashSet<>(g.blocks().stream().map(Block::name).toList());
        String n = base;
        for (int k = 2; names.contains(n); k++) n = base + "-" + k;
        return n;
    }
}
