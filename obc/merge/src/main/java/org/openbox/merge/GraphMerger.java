package org.openbox.merge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.core.BlockInfo;
import org.openbox.merge.core.CatalogueBlockInfo;
import org.openbox.merge.core.Kind;
import org.openbox.merge.core.Rule;

/**
 * Merges the processing graphs of several applications into one equivalent graph
 * (design/merge.md): normalize each graph to trees, concatenate them (chain or distinct),
 * combine consecutive classifiers, re-share identical subtrees, and record provenance.
 *
 * <p>Chain: applications run in priority order (higher first, then list order). Every
 * output terminal (ToDevice, ToDump) of the graph so far leads into the next application:
 * into its only input terminal, or, when it has several, into the FromDevice with the same
 * devname (an output terminal without a match stays an exit). A ToDevice on one of its own
 * application's input devices is a reply and stays an exit ({@link ChainExits}).
 *
 * <p>Distinct: applications whose input terminals are the same (type and config) share it
 * through one front classifier holding each application's front rules in priority order
 * (an application whose first non-static block is not a classifier takes every packet that
 * reaches its turn); other input terminals stay as they are.
 *
 * <p>Thread-safe: a merge keeps no state in the merger (a shared {@link CheckedGraphs} is
 * thread-safe).
 */
public final class GraphMerger {
    private final BlockInfo info;
    private final CheckedGraphs checked;

    public GraphMerger(Catalogue catalogue) {
        this(new CatalogueBlockInfo(catalogue));
    }

    public GraphMerger(BlockInfo info) {
        this(info, null);
    }

    /**
     * A merger that takes the checks of graphs it was given before from {@code checked} (and
     * keeps its new ones there); see {@link CheckedGraphs}. Null: every graph is checked.
     */
    public GraphMerger(Catalogue catalogue, CheckedGraphs checked) {
        this(new CatalogueBlockInfo(catalogue), checked);
    }

    public GraphMerger(BlockInfo info, CheckedGraphs checked) {
        this.info = info;
        this.checked = checked;
    }

    public MergeResult merge(List<AppGraph> graphs, Composition composition, MergeOptions options) {
        if (graphs.isEmpty()) throw new MergeException("nothing to merge: no graph given");
        List<AppGraph> ordered = new ArrayList<>(graphs);
        ordered.sort(Comparator.comparingInt(AppGraph::priority).reversed()); // stable
        List<List<AppGraph>> stages = new ArrayList<>();
        if (composition == Composition.DISTINCT) {
            stages.add(ordered);
        } else {
            for (AppGraph g : ordered) stages.add(List.of(g));
        }
        return mergeStages(stages, options);
    }

    /**
     * Chains the stages in the given order; the applications of one stage are distinct
     * (each packet goes through exactly one of them, split by a shared input's front
     * classifier, in list order). A stage of one application is a link of the chain, so
     * {@code [[a], [b]]} is the chain a then b and {@code [[a, b]]} the distinct a | b.
     */
    public MergeResult mergeStages(List<List<AppGraph>> stages, MergeOptions options) {
        List<AppGraph> ordered = new ArrayList<>();
        for (List<AppGraph> st : stages) {
            if (st.isEmpty()) throw new MergeException("empty stage");
            ordered.addAll(st);
        }
        if (ordered.isEmpty()) throw new MergeException("nothing to merge: no graph given");
        Set<String> apps = new HashSet<>();
        for (AppGraph g : ordered) {
            if (!apps.add(g.app())) throw new MergeException("application name '" + g.app() + "' is used twice");
        }
        MergeReport.Log log = new MergeReport.Log();
        TreeBuilder tb = new TreeBuilder(info, checked);
        int blocksBefore = 0, connectorsBefore = 0, rulesBefore = 0;
        List<List<Node>> forests = new ArrayList<>();
        for (AppGraph g : ordered) {
            TreeBuilder.Checked c = tb.check(g);
            blocksBefore += g.graph().blocks().size();
            connectorsBefore += g.graph().connectors().size();
            for (String b : c.blocks().keySet()) {
                if (c.kinds().get(b) == Kind.CLASSIFIER) {
                    List<Rule> r = c.rules().get(b);
                    rulesBefore += r != null ? r.size() : c.outputs().get(b);
                }
            }
            forests.add(tb.trees(c, log.notes));
        }
        List<List<Node>> stageRoots = new ArrayList<>();
        int at = 0;
        for (List<AppGraph> st : stages) {
            List<List<Node>> mine = forests.subList(at, at + st.size());
            at += st.size();
            if (st.size() == 1) {
                stageRoots.add(mine.get(0));
            } else {
                stageRoots.add(distinct(mine));
            }
        }
        List<Node> roots = chain(stageRoots);
        Compressor compressor = new Compressor(options, log);
        for (Node r : roots) {
            for (int i = 0; i < r.out.length; i++) r.out[i] = compressor.compress(r.out[i]);
        }
        if (options.split()) {
            Splitter splitter = new Splitter(log.notes);
            for (Node r : roots) {
                for (int i = 0; i < r.out.length; i++) r.out[i] = splitter.split(r.out[i]);
            }
        }
        if (options.fuse()) {
            Fuser fuser = new Fuser();
            for (Node r : roots) fuser.mark(r);
        }
        Emitter.Output out = new Emitter().emit(roots, log.folded);
        MergeReport report = new MergeReport(
                blocksBefore,
                connectorsBefore,
                rulesBefore,
                out.graph().blocks().size(),
                out.graph().connectors().size(),
                out.rules(),
                log.combined,
                log.notCombined,
                out.fused(),
                log.notes);
        return new MergeResult(out.graph(), out.provenance(), report);
    }

    // ------------------------------------------------------------------ chain

    private static List<Node> chain(List<List<Node>> forests) {
        Map<String, Set<String>> inputDevices = new HashMap<>(); // app -> devnames of its input terminals
        for (List<Node> forest : forests) {
            for (Node root : forest) {
                String dev = devname(root);
                if (dev == null) continue;
                for (Origin o : root.origins)
                    inputDevices.computeIfAbsent(o.app(), a -> new HashSet<>()).add(dev);
            }
        }
        List<Node> roots = new ArrayList<>(forests.get(0));
        for (int k = 1; k < forests.size(); k++) {
            List<Node> next = forests.get(k);
            Set<Node> consumed = new HashSet<>();
            Set<Node> visited = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            for (Node r : roots) link(r, next, inputDevices, consumed, visited);
            if (next.size() == 1) consumed.add(next.get(0));
            for (Node n : next) if (!consumed.contains(n)) roots.add(n);
        }
        return roots;
    }

    /**
     * Replaces the output terminals under n by the next application's tree. All exits into
     * one input share its subtree (a DAG from here on; the compressor and the emitter work
     * by identity, so a shared subtree is compressed and written once).
     */
    private static void link(
            Node root, List<Node> next, Map<String, Set<String>> inputDevices, Set<Node> consumed, Set<Node> visited) {
        java.util.ArrayDeque<Node> todo = new java.util.ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            Node n = todo.pop();
            if (!visited.add(n)) continue;
            for (int i = 0; i < n.out.length; i++) {
                Node c = n.out[i];
                if (c == null) continue;
                if (c.kind == Kind.OUTPUT) {
                    if (repliesToInput(c, inputDevices)) continue;
                    Node entry = entryFor(c, next);
                    if (entry != null) {
                        consumed.add(entry);
                        n.out[i] = entry.out.length == 0 ? null : entry.out[0];
                        n.inPort[i] = entry.out.length == 0 ? 0 : entry.inPort[0];
                    }
                } else {
                    todo.push(c);
                }
            }
        }
    }

    private static boolean repliesToInput(Node exit, Map<String, Set<String>> inputDevices) {
        String dev = devname(exit);
        for (Origin o : exit.origins) {
            if (ChainExits.repliesToInput(dev, inputDevices.getOrDefault(o.app(), Set.of()))) return true;
        }
        return false;
    }

    /** The input terminal an output terminal leads into, or null when it stays an exit. */
    static Node entryFor(Node exit, List<Node> next) {
        if (next.size() == 1) return next.get(0);
        String dev = devname(exit);
        if (dev == null) return null;
        for (Node in : next) if (dev.equals(devname(in))) return in;
        return null;
    }

    private static String devname(Node n) {
        if (n.config == null || !n.type.endsWith("Device")) return null;
        var d = n.config.get("devname");
        return d == null ? null : d.asText();
    }

    // ------------------------------------------------------------------ distinct

    private static List<Node> distinct(List<List<Node>> forests) {
        Map<String, List<Node>> groups = new LinkedHashMap<>();
        for (List<Node> f : forests) {
            for (Node r : f)
                groups.computeIfAbsent(inputKey(r), k -> new ArrayList<>()).add(r);
        }
        List<Node> roots = new ArrayList<>();
        for (List<Node> g : groups.values()) roots.add(g.size() == 1 ? g.get(0) : front(g));
        return roots;
    }

    static String inputKey(Node r) {
        return r.type + (r.config == null ? "{}" : r.config.toString());
    }

    /** One input terminal feeding a front classifier made of every application's front rules. */
    private static Node front(List<Node> group) {
        List<Rule> rules = new ArrayList<>();
        List<Node> outs = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        List<Origin> origins = new ArrayList<>();
        List<Origin> inputOrigins = new ArrayList<>();
        for (Node r : group) {
            inputOrigins.addAll(r.origins);
            List<Node> path = new ArrayList<>();
            Node x = r.out.length == 0 ? null : r.out[0];
            while (x != null && x.kind == Kind.STATIC) {
                path.add(x);
                x = x.out[0];
            }
            if (x != null && x.isClassifierWithRules()) {
                if (x.readsWholeFrame()) {
                    throw new MergeException(
                            "distinct applications share input '" + r.label() + "' but the front classifier "
                                    + x.label() + " matches whole-frame regexes and cannot be joined with the others");
                }
                for (int j = 0; j < x.rules.size(); j++) {
                    rules.add(x.rules.get(j));
                    outs.add(Node.chain(path, x.out[j], x.inPort[j]));
                    ports.add(path.isEmpty() ? x.inPort[j] : r.inPort[0]);
                }
                origins.addAll(x.origins);
            } else {
                rules.add(Rule.any(List.of()));
                outs.add(r.out.length == 0 ? null : r.out[0]);
                ports.add(r.out.length == 0 ? 0 : r.inPort[0]);
            }
        }
        Node f = new Node("HeaderClassifier", null, Kind.CLASSIFIER, origins, rules, rules.size());
        f.rulesChanged = true;
        for (int k = 0; k < rules.size(); k++) {
            f.out[k] = outs.get(k);
            f.inPort[k] = ports.get(k);
        }
        Node root = group.get(0).shallowCopy();
        root.origins.clear();
        root.origins.addAll(inputOrigins);
        root.out[0] = f;
        root.inPort[0] = 0;
        return root;
    }
}
