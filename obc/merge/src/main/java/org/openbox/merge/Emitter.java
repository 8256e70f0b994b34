package org.openbox.merge;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.openbox.merge.core.ClassifierRules;
import org.openbox.merge.core.Kind;
import org.openbox.merge.core.Rule;
import org.openbox.merge.core.RuleRef;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * Step 4 of the merge and the output: re-shares identical subtrees (same block type and
 * config, same children on the same ports; statics also need the same origin so alerts
 * and logs stay attributable), names the blocks, and writes the graph and its provenance.
 *
 * <p>Names: a block implementing one original block is {@code app.block}; one implementing
 * several is {@code a.x+b.y} (two origins) or {@code a.x+b.y+Nmore}; a name already taken
 * gets {@code #2}, {@code #3}, ... in depth-first order from the input terminals, so the same
 * input always gives the same names.
 */
final class Emitter {
    /** One block of the merged DAG. */
    private static final class Shared {
        String type;
        ObjectNode config;
        Kind kind;
        final Set<Origin> origins = new TreeSet<>();
        List<List<RuleRef>> ruleRefs; // per merged rule; null when not a classifier with rules
        int[] child; // shared ids, -1 = unconnected
        int[] port;
        int[] fuse; // shared ids of the classifiers it performs the lookups of
        String name;
    }

    private final List<Shared> shared = new ArrayList<>();
    /**
     * What makes two blocks one: type, config (as written), children on their ports, fuse
     * targets and, for statics, origins ({@code rest}).
     */
    private record Key(String type, JsonKey config, String rest) {
        /** Without the config: blocks that differ elsewhere never compare their configs. */
        @Override
        public int hashCode() {
            return 31 * type.hashCode() + rest.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k
                    && type.equals(k.type)
                    && rest.equals(k.rest)
                    && java.util.Objects.equals(config, k.config);
        }
    }

    private final Map<Key, Integer> byKey = new HashMap<>();
    private final IdentityHashMap<Node, Integer> ids = new IdentityHashMap<>();
    /** Copies of a block share its config object: key each config once. */
    private final IdentityHashMap<ObjectNode, JsonKey> configKeys = new IdentityHashMap<>();

    private final ClassifierRules.WireCache wire = new ClassifierRules.WireCache();

    /**
     * @param fused one line per classifier that performs other classifiers' lookups
     */
    record Output(Graph graph, Provenance provenance, int rules, List<String> fused) {}

    Output emit(List<Node> roots, java.util.Collection<Origin> folded) {
        List<Integer> rootIds = new ArrayList<>();
        for (Node r : roots) rootIds.add(id(r));
        // names in depth-first order from the roots
        Set<String> used = new HashSet<>();
        Map<String, Integer> nextSuffix = new HashMap<>();
        List<Integer> order = new ArrayList<>();
        boolean[] seen = new boolean[shared.size()];
        for (int r : rootIds) visit(r, seen, order);
        List<Block> blocks = new ArrayList<>();
        List<Connector> connectors = new ArrayList<>();
        Provenance.Builder prov = new Provenance.Builder();
        prov.folded(folded);
        int rules = 0;
        List<String> fused = new ArrayList<>();
        for (int id : order) {
            Shared s = shared.get(id);
            String base = baseName(s);
            String name = base;
            if (!used.add(name)) {
                int k = nextSuffix.getOrDefault(base, 2);
                while (!used.add(name = base + "#" + k)) k++;
                nextSuffix.put(base, k + 1);
            }
            s.name = name;
        }
        for (int id : order) {
            Shared s = shared.get(id);
            ObjectNode config = s.fuse == null ? s.config : withFuse(s, fused);
            blocks.add(new Block(s.type, s.name, config));
            prov.block(s.name, new ArrayList<>(s.origins));
            if (s.ruleRefs != null) {
                rules += s.ruleRefs.size();
                for (int k = 0; k < s.ruleRefs.size(); k++) {
                    for (RuleRef r : s.ruleRefs.get(k)) prov.rule(s.name, r.app(), r.block(), r.rule(), k);
                }
            } else if (s.kind == Kind.CLASSIFIER) {
                rules += s.child.length;
            }
            for (int p = 0; p < s.child.length; p++) {
                if (s.child[p] >= 0) connectors.add(new Connector(s.name, p, shared.get(s.child[p]).name, s.port[p]));
            }
        }
        return new Output(new Graph(blocks, connectors), prov.build(), rules, fused);
    }

    /**
     * The config of a fusing classifier: its own, plus {@code fuse} naming the written
     * targets (each once, at most {@link Fuser#MAX_TARGETS}); adds the report line.
     */
    private ObjectNode withFuse(Shared s, List<String> fused) {
        java.util.LinkedHashSet<Integer> targets = new java.util.LinkedHashSet<>();
        for (int t : s.fuse) {
            Shared x = shared.get(t);
            boolean fits = x.type.equals("HeaderClassifier") || x.type.equals("HeaderPayloadClassifier");
            if (fits && x != s && targets.size() < Fuser.MAX_TARGETS) targets.add(t);
        }
        if (targets.isEmpty() || !s.type.equals("HeaderClassifier")) return s.config;
        // a new object holding the same values (never changed afterwards) and the fuse key
        ObjectNode c = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        if (s.config != null) c.setAll(s.config);
        var names = c.putArray("fuse");
        StringBuilder line =
                new StringBuilder(s.name).append(" (").append(rulesOf(s)).append(" rules)");
        for (int t : targets) {
            Shared x = shared.get(t);
            names.add(x.name);
            line.append(" + ").append(x.name).append(" (").append(rulesOf(x)).append(" rules)");
        }
        fused.add(line.append(": one classification pass (multi-result lookup), no product")
                .toString());
        return c;
    }

    private static int rulesOf(Shared s) {
        return s.ruleRefs != null ? s.ruleRefs.size() : s.child.length;
    }

    /** Depth-first pre-order from id (outputs in order), with an explicit stack. */
    private void visit(int id, boolean[] seen, List<Integer> order) {
        ArrayDeque<Integer> todo = new ArrayDeque<>();
        todo.push(id);
        while (!todo.isEmpty()) {
            int x = todo.pop();
            if (seen[x]) continue;
            seen[x] = true;
            order.add(x);
            int[] child = shared.get(x).child;
            for (int i = child.length - 1; i >= 0; i--) if (child[i] >= 0 && !seen[child[i]]) todo.push(child[i]);
        }
    }

    private static String baseName(Shared s) {
        List<Origin> o = new ArrayList<>(s.origins);
        if (o.isEmpty()) return "merged." + s.type;
        if (o.size() == 1) return o.get(0).toString();
        String two = o.get(0) + "+" + o.get(1);
        return o.size() == 2 ? two : two + "+" + (o.size() - 2) + "more";
    }

    /**
     * Post-order hash-consing: the shared id of a tree node. Its outputs (in order) and then
     * its fuse targets get their ids first, with an explicit stack (any depth).
     */
    private int id(Node root) {
        Integer known = ids.get(root);
        if (known != null) return known;
        ArrayDeque<Node> stack = new ArrayDeque<>();
        ArrayDeque<int[]> next = new ArrayDeque<>(); // per stacked node: the next output / fuse target
        stack.push(root);
        next.push(new int[1]);
        while (!stack.isEmpty()) {
            Node n = stack.peek();
            int[] i = next.peek();
            int fuses = n.fuse == null ? 0 : n.fuse.size();
            Node pending = null;
            while (pending == null && i[0] < n.out.length + fuses) {
                Node c = i[0] < n.out.length ? n.out[i[0]] : n.fuse.get(i[0] - n.out.length);
                i[0]++;
                if (c != null && !ids.containsKey(c)) pending = c;
            }
            if (pending != null) {
                stack.push(pending);
                next.push(new int[1]);
                continue;
            }
            stack.pop();
            next.pop();
            idOf(n);
        }
        return ids.get(root);
    }

    /** The shared id of a node whose outputs and fuse targets have theirs. */
    private int idOf(Node n) {
        int[] child = new int[n.out.length];
        for (int i = 0; i < n.out.length; i++) child[i] = n.out[i] == null ? -1 : ids.get(n.out[i]);
        String type = n.type;
        ObjectNode config = n.config;
        if (n.isClassifierWithRules() && n.rulesChanged) {
            ClassifierRules.Emitted e = ClassifierRules.emit(n.rules, wire);
            type = e.type();
            config = e.config();
        }
        StringBuilder key = new StringBuilder(64);
        for (int i = 0; i < child.length; i++)
            key.append(child[i]).append(':').append(n.inPort[i]).append(',');
        int[] fuse = null;
        if (n.fuse != null) {
            fuse = new int[n.fuse.size()];
            for (int i = 0; i < fuse.length; i++) fuse[i] = ids.get(n.fuse.get(i));
            key.append("\u0001fuse").append(java.util.Arrays.toString(fuse));
        }
        if (n.kind == Kind.STATIC) key.append('\u0001').append(new TreeSet<>(n.origins));
        Key nk =
                new Key(type, config == null ? null : configKeys.computeIfAbsent(config, JsonKey::new), key.toString());
        Integer id = byKey.get(nk);
        Shared s;
        if (id == null) {
            s = new Shared();
            s.type = type;
            s.config = config;
            s.kind = n.kind;
            s.child = child;
            s.port = n.inPort.clone();
            s.fuse = fuse;
            if (n.isClassifierWithRules()) {
                s.ruleRefs = new ArrayList<>();
                for (Rule r : n.rules) s.ruleRefs.add(new ArrayList<>(r.refs()));
            }
            id = shared.size();
            shared.add(s);
            byKey.put(nk, id);
        } else {
            s = shared.get(id);
            if (s.ruleRefs != null && n.rules != null) {
                for (int k = 0; k < n.rules.size() && k < s.ruleRefs.size(); k++) {
                    for (RuleRef r : n.rules.get(k).refs())
                        if (!s.ruleRefs.get(k).contains(r)) s.ruleRefs.get(k).add(r);
                }
            }
        }
        s.origins.addAll(n.origins);
        ids.put(n, id);
        return id;
    }
}
