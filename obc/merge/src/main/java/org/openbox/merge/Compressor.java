package org.openbox.merge;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.openbox.merge.core.HeaderAlgebra;
import org.openbox.merge.core.Inexpressible;
import org.openbox.merge.core.Kind;
import org.openbox.merge.core.ModifierEffects;
import org.openbox.merge.core.Rule;

/**
 * Step 3 of the merge: combines consecutive classifiers on every path of a tree.
 *
 * <p>For a classifier C1 whose output i leads, through statics and modifiers that cannot
 * change C2's decision, to a classifier C2, rule r1 = rule i of C1 is replaced by the rules
 * (r1 AND r2_j) in C2's order, each leading to a copy of the path (statics, modifiers and
 * the modifiers' other outputs) and then to C2's output j, followed by a fallback rule r1
 * leading to the path and a Discard: C2's "no match" for packets that matched r1. Empty
 * intersections are dropped. Rules of C1 whose output does not lead to C2 keep their subtree.
 * The product is made only where its real size (non-empty intersections) fits the rule
 * bound and, with fusion on, is not larger than C1 and C2 apart or is small
 * ({@link ProductSize#SMALL}); otherwise the two stay in
 * sequence and share one classification pass ({@link Fuser}). A shaper, a modifier that
 * may change C2's fields, an opaque classifier or a whole-frame regex classifier stops
 * combining; so do intersections the grammar cannot write (reported). Then unreachable rules are removed and a classifier
 * left with one always-matching rule is replaced by its subtree.
 */
final class Compressor {
    /** A covered rule is looked for among this many earlier rules (keeps pruning linear). */
    private static final int COVER_WINDOW = 4;

    private final MergeOptions options;
    private final MergeReport.Log log;
    /** Downstream classifiers a combination was refused with (reported once). */
    private final Set<Node> refused = Collections.newSetFromMap(new IdentityHashMap<>());
    /**
     * Subtrees already compressed (by identity) and what they became. The chain shares one
     * copy of the next application's tree among all the exits leading into it, so each
     * shared subtree is compressed once; compressing depends only on the subtree.
     */
    private final IdentityHashMap<Node, Node> done = new IdentityHashMap<>();
    /** Set by {@link #local}: its result takes the block's place. */
    private boolean replaced;
    /** Set by {@link #prune}: the classifier was replaced by its subtree or by a drop. */
    private boolean folded;
    /**
     * Classifiers {@link #prune} left as they are or made: pruning them again changes nothing
     * (a kept rule is tested against the same kept rules before it), so it is skipped.
     */
    private final Set<Node> pruned = Collections.newSetFromMap(new IdentityHashMap<>());

    Compressor(MergeOptions options, MergeReport.Log log) {
        this.options = options;
        this.log = log;
    }

    /** A block being compressed: the blocks that become the result, and the next output to compress. */
    private static final class Frame {
        final List<Node> aliases = new ArrayList<>(2);
        Node node; // whose outputs are compressed; null when resolved without
        Node result;
        boolean resolved;
        int next;
    }

    /**
     * Compresses the subtree and returns its new root (may differ: folds). Depth first in
     * output order, with an explicit stack (any depth).
     */
    Node compress(Node n) {
        if (n == null) return null;
        Node known = done.get(n);
        if (known != null) return known;
        ArrayDeque<Frame> stack = new ArrayDeque<>();
        stack.push(open(n));
        Node last = null;
        boolean returning = false;
        while (!stack.isEmpty()) {
            Frame f = stack.peek();
            if (returning) {
                f.node.out[f.next++] = last;
                returning = false;
            }
            if (!f.resolved) {
                Node[] out = f.node.out;
                while (f.next < out.length) {
                    Node c = out[f.next];
                    Node k = c == null ? null : done.get(c);
                    if (c != null && k == null) break;
                    out[f.next++] = k;
                }
                if (f.next < out.length) {
                    stack.push(open(out[f.next]));
                    continue;
                }
                f.result = f.node;
            }
            stack.pop();
            for (Node a : f.aliases) done.put(a, f.result);
            done.put(f.result, f.result);
            last = f.result;
            returning = true;
        }
        return last;
    }

    /** Does the local work at n, following replacements (each compressed in n's place). */
    private Frame open(Node n) {
        Frame f = new Frame();
        Node cur = n;
        while (true) {
            f.aliases.add(cur);
            Node r = local(cur);
            if (!replaced) {
                f.node = r;
                return f;
            }
            Node k = r == null ? null : done.get(r);
            if (r == null || k != null) {
                f.resolved = true;
                f.result = k;
                return f;
            }
            cur = r;
        }
    }

    /**
     * The work at one block before its outputs: prune, combine with downstream classifiers,
     * prune again. Returns the block whose outputs are compressed next, or, with
     * {@link #replaced} set, the block (or null) that takes n's place and is compressed instead.
     */
    private Node local(Node n) {
        replaced = false;
        if (n.isClassifierWithRules() && !n.readsWholeFrame()) {
            Node first = prune(n); // fold before combining: no useless fallback rules
            if (first != n) return replacedBy(first);
            boolean combined = false;
            // per downstream classifier (all copies of one original block): combine all or none
            java.util.Map<List<Origin>, Boolean> groups = new java.util.HashMap<>();
            // rules before i were looked at and cannot combine; a combination at i puts new
            // rules at i.., which are looked at next (their subtrees may hold more classifiers)
            int i = 0;
            while (i < n.rules.size()) {
                List<Node> path = new ArrayList<>();
                Node c2 = downstreamClassifier(n.out[i], path);
                if (c2 == null || refused.contains(c2)) {
                    i++;
                    continue;
                }
                Boolean fits = groups.get(c2.origins);
                if (fits == null) {
                    fits = groupFits(n, i, c2);
                    groups.put(c2.origins, fits);
                }
                if (!fits) {
                    refused.add(c2);
                    i++;
                    continue;
                }
                String why = refusal(n, i, path, c2);
                if (why != null) {
                    refused.add(c2);
                    log.notCombined.add(n.label() + " output " + i + " -> " + c2.label() + ": " + why);
                    i++;
                    continue;
                }
                try {
                    n = combine(n, i, path, c2);
                    combined = true;
                } catch (Inexpressible e) {
                    refused.add(c2);
                    log.notCombined.add(n.label() + " output " + i + " -> " + c2.label() + ": " + e.getMessage());
                    i++;
                }
            }
            if (combined) {
                Node p = prune(n);
                if (folded) return replacedBy(p); // replaced by its subtree or a drop
                n = p; // same classifier, fewer rules: already combined
            }
        }
        return n;
    }

    private Node replacedBy(Node n) {
        replaced = true;
        return n;
    }

    /** Follows statics and modifiers (their output 0) to the first other block; returns it if it is a classifier. */
    private static Node downstreamClassifier(Node n, List<Node> path) {
        while (n != null && (n.kind == Kind.STATIC || n.kind == Kind.MODIFIER)) {
            path.add(n);
            n = n.out.length > 0 ? n.out[0] : null;
        }
        return n != null && n.kind == Kind.CLASSIFIER ? n : null;
    }

    /**
     * Whether c1 combines with every copy of c2 (same original block) that its outputs from
     * {@code from} on lead to. Combining only the first few copies would build a large
     * classifier and still leave the rest in sequence: slower than either extreme, so a
     * classifier reached from many outputs (a firewall's allow rules all leading into an
     * IPS) is combined everywhere or nowhere. The decision is taken on the size of the real
     * product ({@link ProductSize}): it must fit the rule bound and, when fusion is on, not
     * be larger than the two classifiers apart unless it is small (kept in sequence, they
     * share one classification pass instead).
     */
    private boolean groupFits(Node c1, int from, Node c2) {
        if (c2.rules == null) return true; // refused per output, with its reason
        List<Integer> outputs = new ArrayList<>();
        List<Node> copies = new ArrayList<>();
        for (int k = from; k < c1.out.length; k++) {
            Node d = downstreamClassifier(c1.out[k], new ArrayList<>());
            if (d != null && d.rules != null && d.origins.equals(c2.origins)) {
                outputs.add(k);
                copies.add(d);
            }
        }
        long apart = (long) c1.rules.size() + c2.rules.size();
        long limit =
                options.fuse() ? Math.min(Math.max(apart, ProductSize.SMALL), options.maxRules()) : options.maxRules();
        ProductSize size = ProductSize.count(c1, outputs, copies, limit);
        if (size.within()) return true;
        String what = c1.label() + " (" + c1.rules.size() + " rules) x " + c2.label() + " (" + c2.rules.size()
                + " rules)" + (copies.size() > 1 ? " on " + copies.size() + " outputs" : "");
        String why;
        if (size.outOfBudget()) {
            why = "product not computed: more than " + ProductSize.WORK + " rule pairs to intersect";
        } else if (options.fuse() && size.rules() > Math.max(apart, ProductSize.SMALL)) {
            why = "the product would have more than " + Math.max(apart, ProductSize.SMALL) + " rules, more than the "
                    + apart + " apart";
        } else {
            why = "rule bound: the product would have more than " + options.maxRules() + " rules (--max-rules)";
        }
        log.notCombined.add(what + ": " + why + ", kept in sequence");
        return false;
    }

    private String refusal(Node c1, int i, List<Node> path, Node c2) {
        if (c2.rules == null) return "opaque classifier " + c2.type;
        if (c2.readsWholeFrame()) return "whole-frame regex cannot be joined with other rules";
        for (Node m : path) {
            if (m.kind == Kind.MODIFIER && !ModifierEffects.disjoint(m.type, m.config, c2.rules)) {
                return "modifier " + m.label() + " (" + m.type + ") may change the fields it reads";
            }
        }
        return null;
    }

    private Node combine(Node c1, int i, List<Node> path, Node c2) throws Inexpressible {
        Rule r1 = c1.rules.get(i);
        List<Rule> rules = new ArrayList<>();
        List<Node> outs = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        for (int k = 0; k < i; k++) {
            rules.add(c1.rules.get(k));
            outs.add(c1.out[k]);
            ports.add(c1.inPort[k]);
        }
        int made = 0;
        boolean covered = false;
        for (int j = 0; j < c2.rules.size() && !covered; j++) {
            Rule r2 = c2.rules.get(j);
            if (!HeaderAlgebra.meets(r1, r2)) continue;
            Rule r = HeaderAlgebra.intersect(r1, r2);
            if (r.isEmpty()) continue;
            rules.add(r);
            Node tail = c2.out[j];
            outs.add(Node.chain(path, tail, c2.inPort[j]));
            ports.add(path.isEmpty() ? c2.inPort[j] : c1.inPort[i]);
            made++;
            covered = r2.patterns().isEmpty() && HeaderAlgebra.covers(r2, r1); // later rules unreachable
        }
        if (!covered) {
            // C2's "no match" for packets that matched r1: the path's side effects, then a drop
            Node drop = new Node("Discard", null, Kind.DROP, c2.origins, null, 0);
            rules.add(r1);
            outs.add(Node.chain(path, drop, 0));
            ports.add(path.isEmpty() ? 0 : c1.inPort[i]);
        }
        for (int k = i + 1; k < c1.rules.size(); k++) {
            rules.add(c1.rules.get(k));
            outs.add(c1.out[k]);
            ports.add(c1.inPort[k]);
        }
        List<Origin> origins = new ArrayList<>(c1.origins);
        for (Origin o : c2.origins) if (!origins.contains(o)) origins.add(o);
        Collections.sort(origins);
        Node n = new Node(c1.type, c1.config, Kind.CLASSIFIER, origins, rules, rules.size());
        n.rulesChanged = true;
        for (int k = 0; k < rules.size(); k++) {
            n.out[k] = outs.get(k);
            n.inPort[k] = ports.get(k);
        }
        log.combined.add(c1.label() + " (" + c1.rules.size() + " rules) x " + c2.label() + " (" + c2.rules.size()
                + " rules) at output " + i + " -> " + rules.size() + " rules (" + made + " intersections)"
                + (path.isEmpty() ? "" : ", " + path.size() + " block(s) moved behind"));
        return n;
    }

    /** Drops empty and covered rules; folds a classifier left with one always-matching rule. */
    private Node prune(Node n) {
        folded = false;
        if (pruned.contains(n)) return n;
        List<Rule> rules = new ArrayList<>();
        List<Node> outs = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        int[] kept = new int[n.rules.size()]; // indexes in n.rules of the rules kept
        HeaderBoxes boxes = new HeaderBoxes(n.rules);
        int removed = 0;
        boolean sawAny = false;
        for (int k = 0; k < n.rules.size(); k++) {
            Rule r = n.rules.get(k);
            boolean dead = r.isEmpty() || sawAny;
            if (!dead) {
                for (int j = rules.size() - 1; j >= 0 && j >= rules.size() - COVER_WINDOW; j--) {
                    if (HeaderBoxes.coveredBy(boxes, k, boxes, kept[j])) {
                        dead = true;
                        break;
                    }
                }
            }
            if (dead) {
                removed++;
                continue;
            }
            kept[rules.size()] = k;
            rules.add(r);
            outs.add(n.out[k]);
            ports.add(n.inPort[k]);
            sawAny |= r.isAny();
        }
        // outputs beyond the rules (never fed) disappear with a rewrite
        boolean foldable = rules.size() == 1 && rules.get(0).isAny() && options.fold();
        if (removed == 0 && n.out.length == n.rules.size() && !foldable) {
            pruned.add(n);
            return n;
        }
        if (removed > 0) log.notes.add(n.label() + ": removed " + removed + " unreachable rule(s)");
        if (rules.isEmpty()) {
            log.notes.add(n.label() + ": no rule can match, replaced by a drop");
            folded = true;
            return new Node("Discard", null, Kind.DROP, n.origins, null, 0);
        }
        if (foldable && options.fold()) {
            log.notes.add(n.label() + ": single always-matching rule, classifier folded");
            log.folded.addAll(n.origins);
            folded = true;
            return outs.get(0);
        }
        Node m = new Node(n.type, n.config, Kind.CLASSIFIER, n.origins, rules, rules.size());
        m.rulesChanged = true;
        for (int k = 0; k < rules.size(); k++) {
            m.out[k] = outs.get(k);
            m.inPort[k] = ports.get(k);
        }
        pruned.add(m);
        return m;
    }
}
