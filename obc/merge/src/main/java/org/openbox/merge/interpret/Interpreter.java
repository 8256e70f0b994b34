package org.openbox.merge.interpret;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.openbox.merge.MergeException;
import org.openbox.merge.Origin;
import org.openbox.merge.core.BlockInfo;
import org.openbox.merge.core.ClassifierRules;
import org.openbox.merge.core.Kind;
import org.openbox.merge.core.Rule;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * Reference interpreter: runs one packet through a processing graph, block by block, and
 * returns its {@link Outcome}. Semantics (design/merge.md): a packet enters at an input
 * terminal and follows one path; classifiers send it to the output of the first matching
 * rule (no match drops it); statics record an alert / log; shapers pass it on; modifiers
 * change it ({@link Modifiers}); an output terminal ends the run; Discard or an
 * unconnected output drops it. Regexes are java.util.regex (DOTALL) found anywhere in the
 * ISO-8859-1 text of the payload (payload_only) or of the whole frame.
 *
 * <p>Not thread-safe (keeps a compiled-pattern cache); one instance per thread.
 */
public final class Interpreter {
    private final Map<String, Block> blocks = new LinkedHashMap<>();
    private final Map<String, Kind> kinds = new HashMap<>();
    private final Map<String, List<Rule>> rules = new HashMap<>();
    private final Map<String, Connector[]> wiring = new HashMap<>();
    private final Function<String, List<Origin>> originOf;
    private final Map<String, Pattern> patterns = new HashMap<>();
    /** Classifier decisions of the last run: (block, rule index), in path order. */
    private final List<Hit> hits = new ArrayList<>();

    private final Function<String, Pattern> compile =
            re -> patterns.computeIfAbsent(re, r -> Pattern.compile(r, Pattern.DOTALL));

    /**
     * @param originOf for a block name, the application block(s) it implements (alerts and
     *                 logs are reported with it)
     */
    public Interpreter(Graph g, BlockInfo info, Function<String, List<Origin>> originOf) {
        this.originOf = originOf;
        for (Block b : g.blocks()) {
            blocks.put(b.name(), b);
            Kind k = info.kind(b);
            kinds.put(b.name(), k);
            if (k == Kind.CLASSIFIER) {
                List<Rule> r = ClassifierRules.read("", b);
                if (r == null)
                    throw new MergeException("block '" + b.name() + "': the interpreter does not run " + b.type());
                rules.put(b.name(), r);
            } else if (k == Kind.MODIFIER && !Modifiers.supports(b.type())) {
                throw new MergeException("block '" + b.name() + "': the interpreter does not run " + b.type());
            }
        }
        for (Connector c : g.connectors()) {
            Connector[] w = wiring.computeIfAbsent(c.src(), k -> new Connector[8]);
            if (c.srcPort() >= w.length) {
                Connector[] bigger = new Connector[c.srcPort() + 8];
                System.arraycopy(w, 0, bigger, 0, w.length);
                wiring.put(c.src(), w = bigger);
            }
            w[c.srcPort()] = c;
        }
    }

    /** An interpreter for one application's own graph (blocks are their own origin). */
    public static Interpreter forApp(String app, Graph g, BlockInfo info) {
        return new Interpreter(g, info, name -> List.of(new Origin(app, name)));
    }

    /** The input terminals, in block order. */
    public List<String> inputs() {
        List<String> out = new ArrayList<>();
        blocks.forEach((n, b) -> {
            if (kinds.get(n) == Kind.INPUT) out.add(n);
        });
        return out;
    }

    public Block block(String name) {
        return blocks.get(name);
    }

    public Kind kind(String name) {
        return kinds.get(name);
    }

    /** The rules of a classifier block (null for other blocks). */
    public List<Rule> rulesOf(String name) {
        return rules.get(name);
    }

    /** True when the classifier rule matches the packet (used for the distinct split). */
    public boolean matches(Rule r, byte[] packet) {
        return r.matches(new PacketView(packet), compile);
    }

    /** A classifier decision: rule {@code rule} of {@code block} matched. */
    public record Hit(String block, int rule) {}

    /** Runs a packet entering at {@code input} (an input terminal). */
    public Outcome run(String input, byte[] packet) {
        hits.clear();
        return runFrom(input, 0, packet, new ArrayList<>());
    }

    /** The classifier rules the last {@link #run} matched (plus any runFrom since), in order. */
    public List<Hit> hits() {
        return List.copyOf(hits);
    }

    /** Runs a packet entering at {@code input}, after the effects of earlier graphs. */
    public Outcome run(String input, byte[] packet, List<SideEffect> effects) {
        hits.clear();
        return runFrom(input, 0, packet, effects);
    }

    /** Runs a packet leaving block {@code from} on output {@code port}, after earlier effects. */
    public Outcome runFrom(String from, int port, byte[] packet, List<SideEffect> effects) {
        String cur = next(from, port);
        for (int steps = 0; cur != null; steps++) {
            if (steps > 100_000) throw new MergeException("block '" + cur + "': the graph loops");
            Block b = blocks.get(cur);
            int out;
            switch (kinds.get(cur)) {
                case OUTPUT -> {
                    return new Outcome(cur, packet, effects);
                }
                case DROP, INPUT -> {
                    return new Outcome(null, packet, effects);
                }
                case CLASSIFIER -> {
                    out = classify(cur, packet);
                    if (out < 0) return new Outcome(null, packet, effects);
                    hits.add(new Hit(cur, out));
                }
                case STATIC -> {
                    effects.add(new SideEffect(
                            b.type(),
                            originOf.apply(cur),
                            cur,
                            b.config() == null ? "{}" : b.config().toString()));
                    out = 0;
                }
                case SHAPER -> out = 0;
                case MODIFIER -> {
                    Modifiers.Result r = Modifiers.apply(cur, b.type(), b.config(), packet);
                    packet = r.packet();
                    out = r.port();
                }
                default -> throw new IllegalStateException();
            }
            cur = next(cur, out);
        }
        return new Outcome(null, packet, effects);
    }

    /** Index of the first matching rule of a classifier, -1 when none matches. */
    public int classify(String block, byte[] packet) {
        List<Rule> r = rules.get(block);
        PacketView v = new PacketView(packet);
        for (int i = 0; i < r.size(); i++) {
            if (r.get(i).matches(v, compile)) return i;
        }
        return -1;
    }

    /** The block fed by output {@code port} of {@code block}, or null when unconnected. */
    public String successor(String block, int port) {
        return next(block, port);
    }

    private String next(String block, int port) {
        Connector[] w = wiring.get(block);
        if (w == null || port >= w.length || w[port] == null) return null;
        return w[port].dst();
    }
}
