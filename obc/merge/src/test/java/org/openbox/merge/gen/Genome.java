package org.openbox.merge.gen;

import java.util.List;

/**
 * A list of integers read as a sequence of choices; reading past the end gives 0, the
 * simplest choice, so a shrunk (shorter, smaller) genome decodes to a smaller graph.
 */
final class Genome {
    private final List<Integer> genes;
    private int pos;

    Genome(List<Integer> genes) {
        this.genes = genes;
    }

    /** A choice in [0, n). */
    int next(int n) {
        if (pos >= genes.size()) return 0;
        return Math.floorMod(genes.get(pos++), n);
    }

    boolean chance(int percent) {
        return next(100) >= 100 - percent;
    }
}
