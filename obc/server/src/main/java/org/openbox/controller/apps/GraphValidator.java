package org.openbox.controller.apps;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;
import org.springframework.stereotype.Component;

/**
 * Semantic check of an application graph against the block catalogue, before it is ever
 * merged or pushed: known block types with valid config, unique names, connectors between
 * existing blocks on existing ports, and no cycle. Throws {@link ProtocolException} with
 * the spec subtype and a message naming the block or connector.
 */
@Component
public class GraphValidator {

    private final Catalogue catalogue;

    public GraphValidator(Catalogue catalogue) {
        this.catalogue = catalogue;
    }

    public void validate(Graph graph) {
        validate(graph, catalogue);
    }

    /** As {@link #validate(Graph)}, against {@code catalogue} (e.g. one extended by custom modules). */
    public void validate(Graph graph, Catalogue catalogue) {
        if (graph.blocks().isEmpty()) {
            throw new ProtocolException(ErrorSubtype.BAD_GRAPH, "graph has no blocks");
        }
        Map<String, Block> byName = new HashMap<>();
        for (Block b : graph.blocks()) {
            if (byName.put(b.name(), b) != null) {
                throw new ProtocolException(ErrorSubtype.BAD_BLOCK, "block name '" + b.name() + "' is used twice");
            }
            catalogue.validate(b);
        }
        Map<String, List<String>> successors = new HashMap<>();
        for (Connector c : graph.connectors()) {
            Block src = byName.get(c.src());
            Block dst = byName.get(c.dst());
            if (src == null || dst == null) {
                throw new ProtocolException(ErrorSubtype.BAD_CONNECTOR, describe(c) + ": unknown block '"
                        + (src == null ? c.src() : c.dst()) + "'");
            }
            int outs = descriptor(catalogue, src).outputCount(src.config());
            if (c.srcPort() < 0 || c.srcPort() >= outs) {
                throw new ProtocolException(ErrorSubtype.BAD_CONNECTOR, describe(c) + ": block '" + src.name()
                        + "' (" + src.type() + ") has " + outs + " output(s)");
            }
            int ins = descriptor(catalogue, dst).inputCount(dst.config());
            if (c.dstPort() < 0 || c.dstPort() >= ins) {
                throw new ProtocolException(ErrorSubtype.BAD_CONNECTOR, describe(c) + ": block '" + dst.name()
                        + "' (" + dst.type() + ") has " + ins + " input(s)");
            }
            successors.computeIfAbsent(c.src(), k -> new ArrayList<>()).add(c.dst());
        }
        checkAcyclic(byName, successors);
    }

    private static BlockDescriptor descriptor(Catalogue catalogue, Block b) {
        return catalogue.find(b.type()).orElseThrow(() ->
                new ProtocolException(ErrorSubtype.UNSUPPORTED_BLOCK, "block '" + b.name() + "': unknown type " + b.type()));
    }

    private static void checkAcyclic(Map<String, Block> blocks, Map<String, List<String>> successors) {
        Map<String, Integer> indegree = new HashMap<>();
        blocks.keySet().forEach(n -> indegree.put(n, 0));
        successors.values().forEach(list -> list.forEach(d -> indegree.merge(d, 1, Integer::sum)));
        Deque<String> ready = new ArrayDeque<>();
        indegree.forEach((n, d) -> { if (d == 0) ready.add(n); });
        int visited = 0;
        while (!ready.isEmpty()) {
            String n = ready.poll();
            visited++;
            for (String d : successors.getOrDefault(n, List.of())) {
                if (indegree.merge(d, -1, Integer::sum) == 0) {
                    ready.add(d);
                }
            }
        }
        if (visited != blocks.size()) {
            List<String> inCycle = indegree.entrySet().stream().filter(e -> e.getValue() > 0).map(Map.Entry::getKey)
                    .sorted().toList();
            throw new ProtocolException(ErrorSubtype.BAD_GRAPH, "graph has a cycle through blocks " + inCycle);
        }
    }

    private static String describe(Connector c) {
        return "connector " + c.src() + "[" + c.srcPort() + "] -> " + c.dst() + "[" + c.dstPort() + "]";
    }
}
