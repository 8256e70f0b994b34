package org.openbox.merge;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.openbox.protocol.graph.Graph;

/**
 * The checked form of application graphs (step 1 of a merge: blocks, kinds, outputs, rules
 * read from every header match, wiring) kept from one merge to the next, for mergers that
 * share one instance. A controller merges again whenever one application changes; the
 * others bring the very same {@link Graph} objects, and their checks are taken from here
 * instead of being done again (for a 4560-rule firewall, reading and checking its 4561
 * header matches). A graph is found by identity together with its application's name, so
 * an equal but new graph is checked anew. Only graphs that passed are kept; holds the
 * {@code capacity} most recently used, and its owner drops the graphs a reload replaced
 * ({@link #retain}). Thread-safe.
 *
 * <p>The checks depend on the merger's {@link org.openbox.merge.core.BlockInfo}: share an
 * instance only among mergers over the same catalogue.
 */
public final class CheckedGraphs {
    private record Key(String app, Graph graph) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.graph == graph && k.app.equals(app);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(graph) * 31 + app.hashCode();
        }
    }

    private final int capacity;
    private final Map<Key, TreeBuilder.Checked> byGraph = new LinkedHashMap<>(16, 0.75f, true);

    /** @param capacity most graphs kept (at least 1) */
    public CheckedGraphs(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        this.capacity = capacity;
    }

    synchronized TreeBuilder.Checked get(AppGraph g) {
        return byGraph.get(new Key(g.app(), g.graph()));
    }

    synchronized void put(AppGraph g, TreeBuilder.Checked c) {
        byGraph.put(new Key(g.app(), g.graph()), c);
        for (Iterator<Key> it = byGraph.keySet().iterator(); byGraph.size() > capacity; ) {
            it.next();
            it.remove();
        }
    }

    /**
     * Drops the checks of the graphs {@code inUse} refuses. A replaced graph is never found
     * again (graphs are found by identity), and its check holds the graph and all its rules.
     */
    public synchronized void retain(Predicate<Graph> inUse) {
        byGraph.keySet().removeIf(k -> !inUse.test(k.graph()));
    }

    /** How many graphs are kept. */
    public synchronized int size() {
        return byGraph.size();
    }
}
