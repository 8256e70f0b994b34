package org.openbox.merge;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.openbox.merge.core.Kind;

/**
 * After compressing and splitting: classifiers kept in sequence share one classification
 * pass. A block written as a HeaderClassifier whose outputs reach, through statics only
 * (Alert, Log: they neither change the packet nor its path), classifiers written as
 * HeaderClassifier or HeaderPayloadClassifier, performs their header lookups in its own
 * lookup (the OBI's {@code fuse} key); the downstream blocks keep their rules, outputs and
 * counters and use the precomputed answer. Semantics do not change, so a target reached by
 * other paths too is still correct. A modifier in between stops fusion (it may change the
 * fields the target reads); so does a shaper (the packet may wait).
 */
final class Fuser {
    /** Targets one classifier may name (the OBI's limit). */
    static final int MAX_TARGETS = 15;

    private final Set<Node> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Written type per node (a combined classifier's depends on all its rules). */
    private final IdentityHashMap<Node, String> types = new IdentityHashMap<>();

    /** Marks every fusing classifier under root (root included). */
    void mark(Node root) {
        if (root == null || !seen.add(root)) return;
        java.util.ArrayDeque<Node> todo = new java.util.ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            Node n = todo.pop();
            markOne(n);
            for (Node c : n.out) if (c != null && seen.add(c)) todo.push(c);
        }
    }

    /** Marks n when it is a fusing classifier (depends only on n and what its outputs reach). */
    private void markOne(Node n) {
        if (n.kind != Kind.CLASSIFIER || !n.isClassifierWithRules() || !"HeaderClassifier".equals(type(n))) return;
        Set<Node> found = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Node> targets = new ArrayList<>();
        for (Node c : n.out) {
            Node t = c;
            while (t != null && t.kind == Kind.STATIC) t = t.out.length > 0 ? t.out[0] : null;
            if (t != null && t != n && fusable(t) && found.add(t)) targets.add(t);
        }
        if (!targets.isEmpty()) n.fuse = targets;
    }

    private String type(Node n) {
        return types.computeIfAbsent(n, Node::emittedType);
    }

    private boolean fusable(Node t) {
        if (!t.isClassifierWithRules()) return false;
        String type = type(t);
        return type.equals("HeaderClassifier") || type.equals("HeaderPayloadClassifier");
    }
}
