package org.openbox.merge;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.openbox.merge.core.BlockInfo;
import org.openbox.merge.core.ClassifierRules;
import org.openbox.merge.core.HeaderMatchReader;
import org.openbox.merge.core.Kind;
import org.openbox.merge.core.Rule;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;

/**
 * Checks one application's graph and unfolds it into trees, one per input terminal
 * (step 1 of the merge: a block reached along several paths is copied once per path).
 * Errors name the block or connector at fault.
 */
final class TreeBuilder {
    /** Most block copies one application's graph may unfold into (bounds the work on a graph of many diamonds). */
    static final int MAX_TREE_BLOCKS = 2_000_000;

    private final BlockInfo info;
    private final int maxCopies;
    private final CheckedGraphs checked; // null: none kept
    private final HeaderMatchReader matches = new HeaderMatchReader();

    TreeBuilder(BlockInfo info) {
        this(info, MAX_TREE_BLOCKS, null);
    }

    TreeBuilder(BlockInfo info, CheckedGraphs checked) {
        this(info, MAX_TREE_BLOCKS, checked);
    }

    /**
     * @param maxCopies most block copies one application's trees may hold
     * @param checked   checks kept from earlier merges, or null
     */
    TreeBuilder(BlockInfo info, int maxCopies, CheckedGraphs checked) {
        this.info = info;
        this.maxCopies = maxCopies;
        this.checked = checked;
    }

    /**
     * The checked blocks of a graph: kinds, output counts, rules and the wiring. Read only
     * once made (the rule lists are unmodifiable): a check may serve several merges.
     */
    record Checked(
            String app,
            Map<String, Block> blocks,
            Map<String, Kind> kinds,
            Map<String, Integer> outputs,
            Map<String, List<Rule>> rules,
            Map<String, Connector[]> wiring,
            List<String> inputs) {}

    Checked check(AppGraph g) {
        Checked known = checked == null ? null : checked.get(g);
        if (known != null) return known;
        Checked c = checkAnew(g);
        if (checked != null) checked.put(g, c);
        return c;
    }

    private Checked checkAnew(AppGraph g) {
        String app = g.app();
        Map<String, Block> blocks = new LinkedHashMap<>();
        Map<String, Kind> kinds = new HashMap<>();
        Map<String, Integer> outputs = new HashMap<>();
        Map<String, List<Rule>> rules = new HashMap<>();
        List<String> inputs = new ArrayList<>();
        for (Block b : g.graph().blocks()) {
            if (blocks.putIfAbsent(b.name(), b) != null) {
                throw new MergeException(app + ": block name '" + b.name() + "' is used twice");
            }
            Kind k = info.kind(b);
            List<Rule> r = k == Kind.CLASSIFIER ? readRules(app, b) : null;
            info.validate(r == null ? b : ClassifierRules.withoutHeaderMatches(b));
            kinds.put(b.name(), k);
            int n = info.outputs(b);
            if (r != null) {
                rules.put(b.name(), List.copyOf(r));
                n = Math.max(n, r.size());
            }
            outputs.put(b.name(), n);
            if (k == Kind.INPUT) inputs.add(b.name());
        }
        Map<String, Connector[]> wiring = new HashMap<>();
        for (Connector c : g.graph().connectors()) {
            String where =
                    app + ": connector " + c.src() + "[" + c.srcPort() + "] -> " + c.dst() + "[" + c.dstPort() + "]";
            Block src = blocks.get(c.src());
            if (src == null) throw new MergeException(where + ": no block named '" + c.src() + "'");
            if (!blocks.containsKey(c.dst())) throw new MergeException(where + ": no block named '" + c.dst() + "'");
            int n = outputs.get(c.src());
            if (c.srcPort() < 0 || c.srcPort() >= n) {
                throw new MergeException(
                        where + ": block '" + c.src() + "' (" + src.type() + ") has " + n + " output(s)");
            }
            if (kinds.get(c.dst()) == Kind.INPUT) {
                throw new MergeException(where + ": block '" + c.dst() + "' is an input terminal");
            }
            Connector[] w = wiring.computeIfAbsent(c.src(), k -> new Connector[n]);
            if (w[c.srcPort()] != null) {
                throw new MergeException(where + ": output " + c.srcPort() + " of '" + c.src()
                        + "' is already connected to '" + w[c.srcPort()].dst() + "'");
            }
            w[c.srcPort()] = c;
        }
        if (inputs.isEmpty()) {
            throw new MergeException(app + ": the graph has no input terminal (FromDevice / FromDump)");
        }
        return new Checked(app, blocks, kinds, outputs, rules, wiring, inputs);
    }

    /**
     * A classifier's rules, each header match parsed once (shared values once per merge);
     * the rest of the config is then validated without them. When the rules cannot be read,
     * the whole block is validated first, so a config error is reported as the catalogue
     * words it, then the reading error.
     */
    private List<Rule> readRules(String app, Block b) {
        try {
            return ClassifierRules.read(app, b, matches);
        } catch (MergeException e) {
            info.validate(b);
            throw e;
        }
    }

    /** One tree per input terminal, in block order; notes blocks no input reaches. */
    List<Node> trees(Checked c, List<String> notes) {
        List<Node> roots = new ArrayList<>();
        Set<String> reached = new HashSet<>();
        int[] copies = {0};
        for (String in : c.inputs()) {
            roots.add(unfold(c, in, new HashSet<>(), reached, copies));
        }
        List<String> unreached = new ArrayList<>();
        for (String b : c.blocks().keySet()) if (!reached.contains(b)) unreached.add(b);
        if (!unreached.isEmpty()) {
            notes.add(c.app() + ": removed block(s) no input terminal reaches: " + String.join(", ", unreached));
        }
        return roots;
    }

    /** A block being unfolded: its copy and the next output to follow. */
    private static final class Frame {
        final String name;
        final Node node;
        final Connector[] wiring;
        int next;

        Frame(String name, Node node, Connector[] wiring) {
            this.name = name;
            this.node = node;
            this.wiring = wiring;
        }
    }

    /**
     * The tree under block {@code name}, depth first in output order, with an explicit stack
     * (any depth). A block already on the path is a cycle; more than {@code maxCopies} copies
     * in one application's trees are refused.
     */
    private Node unfold(Checked c, String name, Set<String> onPath, Set<String> reached, int[] copies) {
        Deque<Frame> stack = new ArrayDeque<>();
        Frame root = enter(c, name, onPath, reached, copies);
        stack.push(root);
        while (!stack.isEmpty()) {
            Frame f = stack.peek();
            Connector[] w = f.wiring;
            while (w != null && f.next < w.length && w[f.next] == null) f.next++;
            if (w == null || f.next == w.length) {
                onPath.remove(f.name);
                stack.pop();
                continue;
            }
            Connector k = w[f.next];
            Frame child = enter(c, k.dst(), onPath, reached, copies);
            f.node.out[f.next] = child.node;
            f.node.inPort[f.next] = k.dstPort();
            f.next++;
            stack.push(child);
        }
        return root.node;
    }

    private Frame enter(Checked c, String name, Set<String> onPath, Set<String> reached, int[] copies) {
        if (!onPath.add(name)) {
            throw new MergeException(c.app() + ": the graph has a cycle through block '" + name + "'");
        }
        if (++copies[0] > maxCopies) {
            throw new MergeException(c.app() + ": the graph unfolds into more than " + maxCopies
                    + " blocks (a block reached along several paths is copied once per path)");
        }
        reached.add(name);
        Block b = c.blocks().get(name);
        Node n = new Node(
                b.type(),
                b.config(),
                c.kinds().get(name),
                List.of(new Origin(c.app(), name)),
                c.rules().get(name),
                c.outputs().get(name));
        return new Frame(name, n, c.wiring().get(name));
    }
}
