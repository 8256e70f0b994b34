package org.openbox.merge.interpret;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.openbox.merge.AppGraph;
import org.openbox.merge.Composition;
import org.openbox.merge.MergeException;
import org.openbox.merge.Origin;
import org.openbox.merge.core.BlockInfo;
import org.openbox.merge.core.Kind;
import org.openbox.merge.core.Rule;
import org.openbox.protocol.graph.Block;

/**
 * The meaning of a composition, without merging: runs the applications' own graphs one
 * after the other. The merged graph must give the same {@link Outcome} for every packet.
 * <ul>
 * <li>CHAIN (priority order, higher first): a packet leaving application k by an output
 *     terminal enters application k+1 at its only input terminal, or at the FromDevice with
 *     the same devname when it has several (none: the packet leaves there). A ToDevice on
 *     one of application k's own input devices is a reply: the packet leaves there
 *     ({@link org.openbox.merge.ChainExits}).</li>
 * <li>DISTINCT: applications sharing an input terminal are offered the packet in priority
 *     order; the first whose first non-static block is not a classifier, or is a classifier
 *     with a matching rule, processes it; when none takes it, it is dropped.</li>
 * </ul>
 * Exits are reported as "app.block" of the application's output terminal.
 */
public final class Reference {
    private final List<String> apps = new ArrayList<>();
    private final List<Interpreter> graphs = new ArrayList<>();
    private final Composition composition;

    public Reference(List<AppGraph> appGraphs, Composition composition, BlockInfo info) {
        List<AppGraph> ordered = new ArrayList<>(appGraphs);
        ordered.sort(Comparator.comparingInt(AppGraph::priority).reversed());
        for (AppGraph g : ordered) {
            apps.add(g.app());
            graphs.add(Interpreter.forApp(g.app(), g.graph(), info));
        }
        this.composition = composition;
    }

    /**
     * Runs a packet entering at the input terminal(s) {@code entry}: one origin for a chain
     * or an unshared input, the sharing applications' inputs for distinct.
     */
    public Outcome run(List<Origin> entry, byte[] packet) {
        hits.clear();
        Outcome o = runInner(entry, packet);
        return o;
    }

    /** Classifier rules of the applications matched by the last run, as (app, block, rule). */
    public List<org.openbox.merge.core.RuleRef> hits() {
        return List.copyOf(hits);
    }

    private final List<org.openbox.merge.core.RuleRef> hits = new ArrayList<>();

    private void collect(int k) {
        for (Interpreter.Hit h : graphs.get(k).hits())
            hits.add(new org.openbox.merge.core.RuleRef(apps.get(k), h.block(), h.rule()));
    }

    private Outcome runInner(List<Origin> entry, byte[] packet) {
        if (composition == Composition.DISTINCT && entry.size() > 1) {
            for (int k = 0; k < apps.size(); k++) {
                for (Origin o : entry) {
                    if (o.app().equals(apps.get(k)) && takes(graphs.get(k), o.block(), packet)) {
                        Outcome out = graphs.get(k).run(o.block(), packet);
                        collect(k);
                        return named(k, out);
                    }
                }
            }
            return new Outcome(null, packet, List.of());
        }
        Origin o = entry.get(0);
        int k = apps.indexOf(o.app());
        if (k < 0) throw new MergeException("no application '" + o.app() + "'");
        Outcome out = graphs.get(k).run(o.block(), packet);
        collect(k);
        if (composition == Composition.DISTINCT) return named(k, out);
        while (out.exit() != null && k + 1 < apps.size()) {
            String in = entryFor(graphs.get(k), graphs.get(k).block(out.exit()), graphs.get(k + 1));
            if (in == null) break;
            k++;
            out = graphs.get(k).run(in, out.packet(), new ArrayList<>(out.effects()));
            collect(k);
        }
        return named(k, out);
    }

    /** The application block behind an exit reported by {@link #run} ("app.block"). */
    public Origin exitOrigin(String exit) {
        String best = null;
        for (String a : apps) {
            if (exit.startsWith(a + ".") && (best == null || a.length() > best.length())) best = a;
        }
        if (best == null) throw new IllegalArgumentException("no application for exit " + exit);
        return new Origin(best, exit.substring(best.length() + 1));
    }

    private Outcome named(int k, Outcome o) {
        return o.exit() == null ? o : new Outcome(apps.get(k) + "." + o.exit(), o.packet(), o.effects());
    }

    private static String entryFor(Interpreter own, Block exit, Interpreter next) {
        String dev = devname(exit);
        List<String> ownInputs = own.inputs().stream()
                .map(i -> devname(own.block(i)))
                .filter(d -> d != null)
                .toList();
        if (org.openbox.merge.ChainExits.repliesToInput(dev, ownInputs)) return null;
        List<String> ins = next.inputs();
        if (ins.size() == 1) return ins.get(0);
        if (dev == null) return null;
        for (String in : ins) {
            if (dev.equals(devname(next.block(in)))) return in;
        }
        return null;
    }

    private static String devname(Block b) {
        if (b == null || b.config() == null || !b.type().endsWith("Device")) return null;
        return b.config().path("devname").asText(null);
    }

    private static boolean takes(Interpreter g, String input, byte[] packet) {
        String cur = g.block(input) == null ? null : firstAfter(g, input);
        while (cur != null && g.kind(cur) == Kind.STATIC) cur = firstAfter(g, cur);
        if (cur == null || g.kind(cur) != Kind.CLASSIFIER) return true;
        for (Rule r : g.rulesOf(cur)) if (g.matches(r, packet)) return true;
        return false;
    }

    private static String firstAfter(Interpreter g, String block) {
        return g.successor(block, 0);
    }
}
