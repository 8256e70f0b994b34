package org.openbox.merge;

/**
 * Tuning of the merge.
 *
 * @param maxRules bound on the rules of one combined classifier, counted on the real
 *                 (non-empty) intersections: a product that would exceed it is not made (the
 *                 classifiers stay in sequence) and is reported
 * @param fold     replace a classifier whose only rule matches every packet by its subtree;
 *                 the folded copy's rule counts are then lost ({@link Provenance#folded})
 * @param split    write a combined classifier that mixes header-only and payload rules as a
 *                 header stage and a payload stage ({@link Splitter})
 * @param fuse     classifiers kept in sequence share one classification pass: a HeaderClassifier
 *                 names, in its {@code fuse} key, the classifiers its outputs reach through
 *                 statics ({@link Fuser}); a product is then made only where it is not larger
 *                 than the two classifiers apart. Off: no {@code fuse} key, and every product
 *                 within {@code maxRules} is made (the product-only merge)
 */
public record MergeOptions(int maxRules, boolean fold, boolean split, boolean fuse) {
    /** Folding on. */
    public MergeOptions(int maxRules) {
        this(maxRules, true);
    }

    /** Splitting on. */
    public MergeOptions(int maxRules, boolean fold) {
        this(maxRules, fold, true);
    }

    /** Fusion on. */
    public MergeOptions(int maxRules, boolean fold, boolean split) {
        this(maxRules, fold, split, true);
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
