package org.openbox.merge.cli;

import java.util.function.Function;
import org.openbox.merge.core.Kind;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * Graphviz (dot) rendering of a processing graph: one node per block labelled with its
 * name and type (classifiers add their rule count), shaped by kind (terminals: ellipses,
 * classifiers: diamonds, statics: notes, modifiers: boxes, shapers: cylinders); edges
 * carry "out->in" port labels when a port is not 0. A classifier whose {@code fuse} key
 * names others (one classification pass for all of them) is filled with a colour its
 * targets share, with a dashed edge labelled "fused" to each target.
 */
final class DotWriter {
    private DotWriter() {}

    /** Fill colours of fusion groups, in turn. */
    private static final String[] COLOURS = {"lightblue", "palegreen", "lightsalmon", "khaki", "plum", "lightcyan"};

    static String write(Graph g, Function<Block, Kind> kindOf) {
        StringBuilder sb =
                new StringBuilder("digraph openbox {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n");
        java.util.Map<String, String> fill = new java.util.HashMap<>();
        java.util.List<String[]> fusedEdges = new java.util.ArrayList<>();
        int groups = 0;
        for (Block b : g.blocks()) {
            var fuse = b.config() == null ? null : b.config().get("fuse");
            if (fuse == null || !fuse.isArray() || fuse.isEmpty()) continue;
            String colour = fill.get(b.name()); // a target that fuses in turn keeps its group's colour
            if (colour == null) {
                colour = COLOURS[groups++ % COLOURS.length];
                fill.put(b.name(), colour);
            }
            for (var t : fuse) {
                fill.putIfAbsent(t.asText(), colour);
                fusedEdges.add(new String[] {b.name(), t.asText()});
            }
        }
        for (Block b : g.blocks()) {
            Kind k = kindOf.apply(b);
            String shape =
                    switch (k) {
                        case INPUT, OUTPUT, DROP -> "ellipse";
                        case CLASSIFIER -> "diamond";
                        case STATIC -> "note";
                        case SHAPER -> "cylinder";
                        case MODIFIER -> "box";
                    };
            String label = b.name() + "\\n" + b.type();
            if (k == Kind.CLASSIFIER && b.config() != null) {
                var m = b.config().has("match")
                        ? b.config().get("match")
                        : b.config().get("pattern");
                if (m != null && m.isArray()) label += " (" + m.size() + " rules)";
            }
            sb.append("  ")
                    .append(quote(b.name()))
                    .append(" [shape=")
                    .append(shape)
                    .append(", label=")
                    .append(quote(label));
            if (fill.containsKey(b.name()))
                sb.append(", style=filled, fillcolor=").append(fill.get(b.name()));
            sb.append("];\n");
        }
        for (Connector c : g.connectors()) {
            sb.append("  ").append(quote(c.src())).append(" -> ").append(quote(c.dst()));
            if (c.srcPort() != 0 || c.dstPort() != 0) {
                sb.append(" [label=\"")
                        .append(c.srcPort())
                        .append("->")
                        .append(c.dstPort())
                        .append("\"]");
            }
            sb.append(";\n");
        }
        for (String[] e : fusedEdges) {
            sb.append("  ")
                    .append(quote(e[0]))
                    .append(" -> ")
                    .append(quote(e[1]))
                    .append(" [style=dashed, label=\"fused\", constraint=false];\n");
        }
        return sb.append("}\n").toString();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\\\\n", "\\n") + "\"";
    }
}
