package org.openbox.controller.aggregate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openbox.merge.Origin;
import org.openbox.merge.Provenance;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Graph;

/**
 * Finds the applications an OBI's refusal of a merged graph is due to. The OBI's Error
 * message names the block it refused ({@code block 'NAME' (TYPE): ...}, or a quoted name in
 * a connector or cycle error) and, for a classifier, often the rule
 * ({@code rule N ...}) and the offending text in quotes (e.g. a payload pattern). The block's
 * provenance gives its applications; when several applications share it, the rule's
 * per-rule provenance and then the quoted text (found among the strings of an
 * application's own block configuration) narrow them down. When the message names no block
 * of the graph, a graph of one application is that application's fault; otherwise nobody
 * is blamed (empty answer). Only running applications of the graph are candidates.
 */
public final class FaultLocator {

    private static final Pattern QUOTED = Pattern.compile("'([^']*)'");
    private static final Pattern RULE = Pattern.compile("\\brule (\\d+)\\b");
    private static final int MAX_MESSAGE = 8192;

    private FaultLocator() {}

    /**
     * @param graph what the OBI refused
     * @param message the OBI's Error message
     * @param appBlock an application's own block by (application, block name), null when unknown
     */
    public static Set<String> culprits(
            DeployedGraph graph, String message, BiFunction<String, String, Block> appBlock) {
        Set<String> running = Set.copyOf(graph.apps());
        String text =
                message == null ? "" : message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message;
        List<String> quoted = new ArrayList<>();
        Matcher q = QUOTED.matcher(text);
        while (q.find()) quoted.add(q.group(1));
        Set<String> names = new java.util.HashSet<>(
                graph.graph().blocks().stream().map(Block::name).toList());
        for (int i = 0; i < quoted.size(); i++) {
            String merged = quoted.get(i);
            if (!names.contains(merged)) continue;
            List<Origin> origins = graph.origins().originsOf(merged).stream()
                    .filter(r -> running.contains(r.app()))
                    .toList();
            if (origins.isEmpty()) continue;
            String after = text.substring(text.indexOf("'" + merged + "'") + merged.length() + 2);
            origins = byRule(graph.origins(), merged, after, origins, appBlock);
            origins = byText(quoted.subList(i + 1, quoted.size()), origins, appBlock);
            Set<String> apps = new LinkedHashSet<>();
            origins.forEach(r -> apps.add(r.app()));
            return apps;
        }
        return running.size() == 1 ? running : Set.of();
    }

    /** Keeps the origins one of whose rules became the merged rule the message names. */
    private static List<Origin> byRule(
            Provenance origins,
            String merged,
            String after,
            List<Origin> refs,
            BiFunction<String, String, Block> appBlock) {
        if (refs.size() < 2) return refs;
        Matcher m = RULE.matcher(after);
        if (!m.find()) return refs;
        int mergedRule;
        try {
            mergedRule = Integer.parseInt(m.group(1));
        } catch (NumberFormatException e) {
            return refs;
        }
        List<Origin> out = new ArrayList<>();
        for (Origin r : refs) {
            Block b = appBlock.apply(r.app(), r.block());
            int rules =
                    b == null || b.config() == null || !b.config().path("match").isArray()
                            ? 0
                            : b.config().get("match").size();
            for (int k = 0; k < rules; k++) {
                if (origins.mergedRulesOf(r.app(), r.block(), k, merged).contains(mergedRule)) {
                    out.add(r);
                    break;
                }
            }
        }
        return out.isEmpty() ? refs : out;
    }

    /** Keeps the origins whose own configuration contains one of the quoted texts. */
    private static List<Origin> byText(
            List<String> quoted, List<Origin> refs, BiFunction<String, String, Block> appBlock) {
        if (refs.size() < 2 || quoted.isEmpty()) return refs;
        List<Origin> out = new ArrayList<>();
        for (Origin r : refs) {
            Block b = appBlock.apply(r.app(), r.block());
            if (b != null && b.config() != null && containsString(b.config(), Set.copyOf(quoted), 0)) out.add(r);
        }
        return out.isEmpty() ? refs : out;
    }

    private static boolean containsString(JsonNode n, Set<String> texts, int depth) {
        if (depth > 32) return false;
        if (n.isTextual()) return texts.contains(n.asText());
        for (JsonNode c : n) {
            if (containsString(c, texts, depth + 1)) return true;
        }
        return false;
    }

    /** The block of a graph by name (null when absent). */
    public static Block block(Graph g, String name) {
        return g.blocks().stream()
                .filter(b -> b.name().equals(name))
                .findFirst()
                .orElse(null);
    }
}
