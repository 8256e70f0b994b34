package org.openbox.merge;

import java.util.ArrayList;
import java.util.List;

/**
 * What a merge did, for people: sizes before and after, each classifier combination made,
 * each one refused (rule bound, inexpressible intersection, crossing a modifier or shaper)
 * and the other simplifications.
 *
 * @param blocksBefore     blocks in all input graphs
 * @param connectorsBefore connectors in all input graphs
 * @param rulesBefore      classifier rules in all input graphs
 * @param blocksAfter      blocks in the merged graph
 * @param connectorsAfter  connectors in the merged graph
 * @param rulesAfter       classifier rules in the merged graph
 * @param combined         one line per classifier combination made
 * @param notCombined      one line per combination refused, with the reason
 * @param fused            one line per classifier that performs, in one classification pass,
 *                         the header lookups of the classifiers kept in sequence behind it
 * @param notes            other simplifications (unreachable rules or blocks, folds)
 */
public record MergeReport(
        int blocksBefore,
        int connectorsBefore,
        int rulesBefore,
        int blocksAfter,
        int connectorsAfter,
        int rulesAfter,
        List<String> combined,
        List<String> notCombined,
        List<String> fused,
        List<String> notes) {

    public MergeReport {
        combined = List.copyOf(combined);
        notCombined = List.copyOf(notCombined);
        fused = List.copyOf(fused);
        notes = List.copyOf(notes);
    }

    /** A multi-line human summary (the CLI prints it on stderr). */
    public String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                "before: %d blocks, %d connectors, %d rules%n", blocksBefore, connectorsBefore, rulesBefore));
        sb.append(String.format(
                "after:  %d blocks, %d connectors, %d rules%n", blocksAfter, connectorsAfter, rulesAfter));
        sb.append(String.format("combined %d classifier pair(s)%n", combined.size()));
        combined.forEach(s -> sb.append("  + ").append(s).append(System.lineSeparator()));
        if (!notCombined.isEmpty()) {
            sb.append(String.format("kept in sequence: %d%n", notCombined.size()));
            notCombined.forEach(s -> sb.append("  - ").append(s).append(System.lineSeparator()));
        }
        if (!fused.isEmpty()) {
            sb.append(String.format("fused %d classifier group(s)%n", fused.size()));
            fused.forEach(s -> sb.append("  = ").append(s).append(System.lineSeparator()));
        }
        notes.forEach(s -> sb.append("  note: ").append(s).append(System.lineSeparator()));
        return sb.toString();
    }

    /** Mutable collector used during one merge. */
    static final class Log {
        final List<String> combined = new ArrayList<>();
        final List<String> notCombined = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        final java.util.Set<Origin> folded = new java.util.TreeSet<>();
    }
}
