package org.openbox.merge;

/**
 * Tuning of the merge.
 *
 * @param maxRules bound on the rules of one combined classifier: a combination that would
 *                 exceed it is not made (the classifiers stay in sequence) and is reported
 */
public record MergeOptions(int maxRules) {
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
