package org.openbox.merge;

/**
 * Tuning of the merge.
 *
 * @param maxRules bound on the rules of one combined classifier: a combination that would
 *                 exceed it is not made (the classifiers stay in sequence) and is reported
 * @param fold     replace a classifier whose only rule matches every packet by its subtree;
 *                 the folded copy's rule counts are then lost ({@link Provenance#folded})
 * @param split    write a combined classifier that mixes header-only and payload rules as a
 *                 header stage and a payload stage ({@link Splitter})
 */
public record MergeOptions(int maxRules, boolean fold, boolean split) {
    /** Folding on. */
    public MergeOptions(int maxRules) {
        this(maxRules, true);
    }

    /** Splitting on. */
    public MergeOptions(int maxRules, boolean fold) {
        this(maxRules, fold, true);
    }

    public static final int DEFAULT_MAX_RULES = 10_000;

    public MergeOptions {
        if (maxRules < 1) {
            throw new IllegalArgumentException("maxRules must be >= 1, got " + maxRules);
        }
    }

    public static MergeOptions defaults() {
        return new MergeOptions(DEFAULT_MAX_RULES);
    }
}
