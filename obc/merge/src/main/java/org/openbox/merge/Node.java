package org.openbox.merge;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.openbox.merge.core.Kind;
import org.openbox.merge.core.Rule;

/**
 * A block of the tree the merge works on (every path has its own copy of each block).
 * {@code out[i]} is the subtree fed by output i (null: unconnected, packets sent there are
 * dropped), entering it on input port {@code inPort[i]}. Classifiers the merge understands
 * carry their rules (rule i feeds output i); {@code rulesChanged} tells whether the block
 * must be written from its rules rather than from its original config.
 */
final class Node {
    final String type;
    final ObjectNode config;
    final Kind kind;
    final List<Origin> origins;
    List<Rule> rules;
    boolean rulesChanged;
    Node[] out;
    int[] inPort;
    /** Downstream classifiers this one performs the header lookups of ({@link Fuser}); null: none. */
    List<Node> fuse;

    Node(String type, ObjectNode config, Kind kind, List<Origin> origins, List<Rule> rules, int outputs) {
        this.type = type;
        this.config = config;
        this.kind = kind;
        this.origins = new ArrayList<>(origins);
        this.rules = rules;
        this.out = new Node[outputs];
        this.inPort = new int[outputs];
    }

    /** A copy of this node without its children (same number of outputs). */
    Node shallowCopy() {
        Node n = new Node(type, config, kind, origins, rules, out.length);
        n.rulesChanged = rulesChanged;
        System.arraycopy(inPort, 0, n.inPort, 0, inPort.length);
        return n;
    }

    /** A copy of the whole subtree (a block reached along several paths is copied once per path). */
    Node deepCopy() {
        Node root = shallowCopy();
        java.util.ArrayDeque<Node[]> todo = new java.util.ArrayDeque<>(); // {original, copy}
        todo.push(new Node[] {this, root});
        while (!todo.isEmpty()) {
            Node[] p = todo.pop();
            for (int i = 0; i < p[0].out.length; i++) {
                Node c = p[0].out[i];
                if (c == null) continue;
                Node copy = c.shallowCopy();
                p[1].out[i] = copy;
                todo.push(new Node[] {c, copy});
            }
        }
        return root;
    }

    /**
     * A copy of the path blocks (each copy keeps its other outputs, as copies) whose
     * output 0 chains into the next and, after the last, into tail on input port tailPort.
     */
    static Node chain(List<Node> path, Node tail, int tailPort) {
        Node next = tail;
        for (int k = path.size() - 1; k >= 0; k--) {
            Node p = path.get(k);
            Node c = p.shallowCopy(); // keeps the input ports of its outputs
            for (int o = 1; o < p.out.length; o++) {
                c.out[o] = p.out[o] == null ? null : p.out[o].deepCopy();
            }
            c.out[0] = next;
            if (k == path.size() - 1) c.inPort[0] = tailPort;
            next = c;
        }
        return next;
    }

    boolean isClassifierWithRules() {
        return kind == Kind.CLASSIFIER && rules != null;
    }

    /** True when the classifier reads whole-frame regexes (never combined with anything). */
    boolean readsWholeFrame() {
        for (Rule r : rules) {
            if (r.whole() && !r.patterns().isEmpty()) return true;
        }
        return false;
    }

    /** The block type this node is written as. */
    String emittedType() {
        return isClassifierWithRules() && rulesChanged ? org.openbox.merge.core.ClassifierRules.typeOf(rules) : type;
    }

    String label() {
        return origins.isEmpty()
                ? type
                : origins.get(0) + (origins.size() > 1 ? "(+" + (origins.size() - 1) + ")" : "");
    }
}
