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
 * carry "out->in" port labels when a port is not 0.
 */
final class DotWriter {
    private DotWriter() {}

    static String write(Graph g, Function<Block, Kind> kindOf) {
        StringBuilder sb = new StringBuilder("digraph openbox {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n");
        for (Block b : g.blocks()) {
            Kind k = kindOf.apply(b);
            String shape = switch (k) {
                case INPUT, OUTPUT, DROP -> "ellipse";
                case CLASSIFIER -> "diamond";
                case STATIC -> "note";
                case SHAPER -> "cylinder";
                case MODIFIER -> "box";
            };
            String label = b.name() + "\\n" + b.type();
            if (k == Kind.CLASSIFIER && b.config() != null) {
                var m = b.config().has("match") ? b.config().get("match") : b.config().get("pattern");
                if (m != null && m.isArray()) label += " (" + m.size() + " rules)";
            }
            sb.append("  ").append(quote(b.name())).append(" [shape=").append(shape)
                    .append(", label=").append(quote(label)).append("];\n");
        }
        for (Connector c : g.connectors()) {
            sb.append("  ").append(quote(c.src())).append(" -> ").append(quote(c.dst()));
            if (c.srcPort() != 0 || c.dstPort() != 0) {
                sb.append(" [label=\"").append(c.srcPort()).append("->").append(c.dstPort()).append("\"]");
            }
            sb.append(";\n");
        }
        return sb.append("}\n").toString();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\\\\n", "\\n") + "\"";
    }
}
