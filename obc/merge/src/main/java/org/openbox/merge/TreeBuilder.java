package org.openbox.merge;

import java.util.ArrayList;
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
import org.openbox.protocol.graph.Graph;

/**
 * Checks one application's graph and unfolds it into trees, one per input terminal
 * (step 1 of the merge: a block reached along several paths is copied once per path).
 * Errors name the block or connector at fault.
 */
final class TreeBuilder {
    private final BlockInfo info;
    private final HeaderMatchReader matches = new HeaderMatchReader();

    TreeBuilder(BlockInfo info) {
        this.info = info;
    }

    /** The checked blocks of a graph: kinds, output counts, rules and the wiring. */
    record Checked(String app, Map<String, Block> blocks, Map<String, Kind> kinds, Map<String, Integer> outputs,
                   Map<String, List<Rule>> rules, Map<String, Connector[]> wiring, List<String> inputs) {}

    Checked check(AppGraph g) {
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
                rules.put(b.name(), r);
                n = Math.max(n, r.size());
            }
            outputs.put(b.name(), n);
            if (k == Kind.INPUT) inputs.add(b.name());
        }
        Map<String, Connector[]> wiring = new HashMap<>();
        for (Connector c : g.graph().connectors()) {
            String where = app + ": connector " + c.src() + "[" + c.srcPort() + "] -> " + c.dst() + "[" + c.dstPort() + "]";
            Block src = blocks.get(c.src());
            if (src == null) throw new MergeException(where + ": no block named '" + c.src() + "'");
            if (!blocks.containsKey(c.dst())) throw new MergeException(where + ": no block named '" + c.dst() + "'");
            int n = outputs.get(c.src());
            if (c.srcPort() < 0 || c.srcPort() >= n) {
                throw new MergeException(where + ": block '" + c.src() + "' (" + src.type() + ") has " + n + " output(s)");
            }
            if (kinds.get(c.dst()) == Kind.INPUT) {
                throw new MergeException(where + ": block '" + c.dst() + "' is an input terminal");
            }
            Connector[] w = wiring.computeIfAbsent(c.src(), k -> new Connector[n]);
            if (w[c.srcPort()] != null) {
                throw new MergeException(where + ": output " + c.srcPort() + " of '" + c.src() + "' is already connected to '"
                        + w[c.srcPort()].dst() + "'");
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
        for (String in : c.inputs()) {
            roots.add(unfold(c, in, new HashSet<>(), reached));
        }
        List<String> unreached = new ArrayList<>();
        for (String b : c.blocks().keySet()) if (!reached.contains(b)) unreached.add(b);
        if (!unreached.isEmpty()) {
            notes.add(c.app() + ": removed block(s) no input terminal reaches: " + String.join(", ", unreached));
        }
        return roots;
    }

    private Node unfold(Checked c, String name, Set<String> onPath, Set<String> reached) {
        if (!onPath.add(name)) {
            throw new MergeException(c.app() + ": the graph has a cycle through block '" + name + "'");
        }
        reached.add(name);
        Block b = c.blocks().get(name);
        List<Rule> rules = c.rules().get(name);
        Node n = new Node(b.type(), b.config(), c.kinds().get(name), List.of(new Origin(c.app(), name)), rules,
                c.outputs().get(name));
        Connector[] w = c.wiring().get(name);
        if (w != null) {
            for (int i = 0; i < w.length; i++) {
                if (w[i] != null) {
                    n.out[i] = unfold(c, w[i].dst(), onPath, reached);
                    n.inPort[i] = w[i].dstPort();
                }
            }
        }
        onPath.remove(name);
        return n;
    }
}
