package org.openbox.merge;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import org.openbox.merge.core.HeaderAlgebra;
import org.openbox.merge.core.Inexpressible;
import org.openbox.merge.core.Kind;
import org.openbox.merge.core.Rule;

/**
 * After combining: a combined classifier that mixes header-only rules with payload rules
 * becomes a header stage and a payload stage, so that only packets that need a payload
 * look-up pay for one (a gateway firewall combined with a web cache's GET regex would
 * otherwise send every packet through a HeaderPayloadClassifier).
 *
 * <p>The header stage has every rule's header part in the original order. A header-only
 * rule keeps its output; a payload rule's output leads to the payload stage, one block
 * shared by all of them, holding the rules from the first payload rule on (with their
 * outputs) that such a packet can match. A packet reaching it matched no earlier header,
 * so no earlier rule could match, and the payload stage's first match is the original
 * classifier's first match; its "no match" is the original's. When all payload rules
 * share the same patterns, the payload stage is a RegexMatcher followed by a header
 * classifier for each answer ({@link #matcherFirst}). Per-rule counts stay exact: a payload rule is counted
 * by the payload stage only (its header-stage rule implements no application rule).
 */
final class Splitter {
    private final IdentityHashMap<Node, Node> done = new IdentityHashMap<>();
    private final List<String> notes;

    Splitter(List<String> notes) {
        this.notes = notes;
    }

    /**
     * Splits every mixed combined classifier under root; returns root's replacement. Outputs
     * first (in order), then the block, with an explicit stack (any depth).
     */
    Node split(Node root) {
        if (root == null) return null;
        Node known = done.get(root);
        if (known != null) return known;
        ArrayDeque<Node> stack = new ArrayDeque<>();
        ArrayDeque<int[]> next = new ArrayDeque<>(); // per stacked node: the next output to split
        stack.push(root);
        next.push(new int[1]);
        while (true) {
            Node n = stack.peek();
            int[] i = next.peek();
            while (i[0] < n.out.length) {
                Node c = n.out[i[0]];
                Node k = c == null ? null : done.get(c);
                if (c != null && k == null) break;
                n.out[i[0]++] = k;
            }
            if (i[0] < n.out.length) {
                stack.push(n.out[i[0]]);
                next.push(new int[1]);
                continue;
            }
            Node r = splittable(n) ? splitOne(n) : n;
            done.put(n, r);
            stack.pop();
            next.pop();
            if (stack.isEmpty()) return r;
            Node parent = stack.peek();
            parent.out[next.peek()[0]++] = r;
        }
    }

    /** Above this many header intersections the payload stage keeps every rule from the first payload rule on. */
    private static final long PRUNE_WORK = 1_000_000;
    /** A covering feeding rule is looked for among this many later rules (keeps it linear). */
    private static final int SHADOW_WINDOW = 256;

    /**
     * Rules from {@code first} on that a packet reaching the payload stage can match: it
     * matched first the header of some payload rule i, so rule j is reachable only when
     * its header meets the header of a payload rule i <= j.
     */
    private static List<Integer> reachable(List<Rule> rules, int first) {
        List<Integer> all = new ArrayList<>();
        for (int k = first; k < rules.size(); k++) all.add(k);
        long payloadRules = rules.stream().filter(r -> !r.patterns().isEmpty()).count();
        if (payloadRules * all.size() > PRUNE_WORK) return all;
        List<Rule> heads = new ArrayList<>(); // headers of the payload rules seen so far
        List<Integer> kept = new ArrayList<>();
        for (int k : all) {
            Rule r = rules.get(k);
            Rule h = new Rule(r.header(), List.of(), false, List.of());
            if (!r.patterns().isEmpty()) {
                heads.add(h);
                kept.add(k);
                continue;
            }
            for (Rule p : heads) {
                if (meets(p, h)) {
                    kept.add(k);
                    break;
                }
            }
        }
        return kept;
    }

    private static boolean meets(Rule a, Rule b) {
        try {
            return !HeaderAlgebra.intersect(a, b).isEmpty();
        } catch (Inexpressible e) {
            return true; // cannot tell: keep the rule
        }
    }

    /**
     * A combined classifier with payload rules where some header-only rule comes before the
     * first payload rule whose header matches everything: packets matching that header-only
     * rule can skip the payload stage (after an any-header payload rule, every packet goes
     * to the payload stage and the header stage would be pure overhead, as for an IPS).
     */
    private static boolean splittable(Node n) {
        if (!n.isClassifierWithRules() || !n.rulesChanged) return false;
        boolean payload = false, skips = false, open = true;
        for (Rule r : n.rules) {
            if (r.patterns().isEmpty()) {
                if (open) skips = true;
            } else {
                if (r.whole()) return false; // whole-frame regexes are never written with headers
                payload = true;
                if (r.header().isEmpty()) open = false;
            }
        }
        return payload && skips;
    }

    private Node splitOne(Node n) {
        int first = 0;
        while (n.rules.get(first).patterns().isEmpty()) first++;
        int size = n.rules.size();
        List<Integer> kept = reachable(n.rules, first);
        List<Rule> tail = new ArrayList<>();
        for (int k : kept) tail.add(n.rules.get(k));
        List<String> shared = samePatterns(tail);
        Node payload = shared != null ? matcherFirst(n, kept, shared) : classifier(n, kept, tail);
        List<Rule> heads = new ArrayList<>();
        List<Boolean> feeds = new ArrayList<>(); // header-stage rule leads to the payload stage
        for (Rule r : n.rules) {
            boolean hasPayload = !r.patterns().isEmpty();
            heads.add(hasPayload ? new Rule(r.header(), List.of(), false, List.of()) : r);
            feeds.add(hasPayload);
        }
        List<Integer> stage = withoutShadowedFeeders(heads, feeds);
        Node header = new Node(
                "HeaderClassifier",
                null,
                Kind.CLASSIFIER,
                n.origins,
                stage.stream().map(heads::get).toList(),
                stage.size());
        header.rulesChanged = true;
        int toPayload = 0;
        for (int t = 0; t < stage.size(); t++) {
            int k = stage.get(t);
            header.out[t] = feeds.get(k) ? payload : n.out[k];
            header.inPort[t] = feeds.get(k) ? 0 : n.inPort[k];
            if (feeds.get(k)) toPayload++;
        }
        notes.add(n.label() + ": split into a header stage (" + stage.size() + " rules, " + toPayload
                + " leading to the payload stage) and a payload stage ("
                + (shared != null ? "RegexMatcher, then " + tail.size() + " header rules" : tail.size() + " rules")
                + ")");
        return header;
    }

    /** The patterns every payload rule of the stage has, when they all have the same ones; else null. */
    private static List<String> samePatterns(List<Rule> rules) {
        List<String> p = null;
        for (Rule r : rules) {
            if (r.patterns().isEmpty()) continue;
            if (p == null) p = r.patterns();
            else if (!p.equals(r.patterns())) return null;
        }
        return p;
    }

    /** The payload stage as one HeaderPayloadClassifier with the rules at {@code kept}. */
    private static Node classifier(Node n, List<Integer> kept, List<Rule> tail) {
        Node payload = new Node("HeaderPayloadClassifier", null, Kind.CLASSIFIER, n.origins, tail, tail.size());
        payload.rulesChanged = true;
        for (int t = 0; t < kept.size(); t++) {
            payload.out[t] = n.out[kept.get(t)];
            payload.inPort[t] = n.inPort[kept.get(t)];
        }
        return payload;
    }

    /**
     * The payload stage when every payload rule has the same patterns (one application's
     * regex combined with other applications' header rules): one RegexMatcher scan, then
     * a HeaderClassifier per answer: on a match the payload rules are header rules, else
     * they cannot match and only the header-only rules remain. Cheaper than a
     * HeaderPayloadClassifier, which looks up two rule sets per packet besides the scan.
     */
    private static Node matcherFirst(Node n, List<Integer> kept, List<String> patterns) {
        ObjectNode cfg = JsonNodeFactory.instance.objectNode();
        ArrayNode p = cfg.putArray("pattern");
        patterns.forEach(p::add);
        cfg.put("payload_only", true);
        if (patterns.size() > 1) cfg.put("match_all", true);
        List<Rule> rules = List.of(new Rule(java.util.Map.of(), patterns, false, List.of()), Rule.any(List.of()));
        Node matcher = new Node("RegexMatcher", cfg, Kind.CLASSIFIER, n.origins, rules, 2);
        List<Integer> matched = new ArrayList<>(kept), unmatched = new ArrayList<>();
        for (int k : kept) if (n.rules.get(k).patterns().isEmpty()) unmatched.add(k);
        matcher.out[0] = headerRules(n, matched);
        matcher.out[1] = unmatched.isEmpty() ? null : headerRules(n, unmatched);
        return matcher;
    }

    /** A HeaderClassifier with the header parts (and origins) of n's rules at {@code at}. */
    private static Node headerRules(Node n, List<Integer> at) {
        List<Rule> rules = new ArrayList<>();
        for (int k : at) {
            Rule r = n.rules.get(k);
            rules.add(new Rule(r.header(), List.of(), false, r.refs()));
        }
        Node h = new Node("HeaderClassifier", null, Kind.CLASSIFIER, n.origins, rules, rules.size());
        h.rulesChanged = true;
        for (int t = 0; t < at.size(); t++) {
            h.out[t] = n.out[at.get(t)];
            h.inPort[t] = n.inPort[at.get(t)];
        }
        return h;
    }

    /**
     * Header-stage rules to keep: a rule feeding the payload stage is left out when a later
     * feeding rule covers it and no rule in between (leading elsewhere) meets it; its packets
     * then reach the payload stage through the covering rule. Feeding rules implement no
     * application rule, so no count is lost.
     */
    private static List<Integer> withoutShadowedFeeders(List<Rule> heads, List<Boolean> feeds) {
        List<Integer> keep = new ArrayList<>();
        for (int i = 0; i < heads.size(); i++) {
            boolean shadowed = false;
            if (feeds.get(i)) {
                for (int j = i + 1; j < heads.size() && j - i <= SHADOW_WINDOW; j++) {
                    if (feeds.get(j)) {
                        if (HeaderAlgebra.covers(heads.get(j), heads.get(i))) {
                            shadowed = true;
                            break;
                        }
                    } else if (meets(heads.get(j), heads.get(i))) {
                        break;
                    }
                }
            }
            if (!shadowed) keep.add(i);
        }
        return keep;
    }
}
