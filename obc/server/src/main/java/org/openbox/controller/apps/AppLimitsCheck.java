package org.openbox.controller.apps;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.openbox.catalogue.ArgDescriptor;
import org.openbox.catalogue.ArgType;
import org.openbox.catalogue.BlockClass;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.openbox.controller.LimitsProperties;
import org.openbox.controller.LimitsProperties.AppLimits;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Graph;
import org.springframework.stereotype.Component;

/**
 * Checks an application's validated graphs against the operator's per-application limits
 * ({@code openbox.limits.apps.NAME.*}, else {@code openbox.limits.apps.default.*}, else the
 * built-in defaults of {@link AppLimits}) before they are ever merged. Throws
 * {@link IllegalArgumentException} with one line naming the application, what it holds and
 * the property it exceeds, e.g.
 * {@code app ips: 1458 payload patterns exceed openbox.limits.apps.ips.max-patterns=1000}.
 *
 * <p>What is counted: the blocks of each graph; the rules (one per output) of each classifier
 * block; the payload patterns the OBI compiles with Hyperscan (RegexClassifier and
 * RegexMatcher {@code pattern}, every {@code payload_match} of a header-payload match) over
 * all the application's graphs, with their length in UTF-8 bytes summed as the measure of
 * the compiled database's size.
 */
@Component
public class AppLimitsCheck {

    /** Block types whose string-array argument {@code pattern} is compiled with Hyperscan. */
    private static final List<String> REGEX_PATTERN_BLOCKS = List.of("RegexClassifier", "RegexMatcher");

    private final Map<String, AppLimits> limits;

    public AppLimitsCheck(LimitsProperties props) {
        this.limits = props.apps();
    }

    /** One limit as it applies to an application: its value and the property that set it. */
    record Applied(long value, String property) {}

    /** Throws when the application's graphs exceed one of its limits (the first found). */
    public void check(String app, List<Graph> graphs, Catalogue types) {
        long patterns = 0;
        long patternBytes = 0;
        for (Graph g : graphs) {
            Applied maxBlocks = limit(app, "max-blocks-per-graph", l -> toLong(l.maxBlocksPerGraph()));
            if (g.blocks().size() > maxBlocks.value()) {
                throw over(app, g.blocks().size() + " blocks in one graph", maxBlocks);
            }
            for (Block b : g.blocks()) {
                Optional<BlockDescriptor> d = types.find(b.type());
                if (d.isEmpty()) {
                    continue; // validated already: only a type the catalogue lacks could be here
                }
                int rules = rules(d.get(), b);
                Applied maxRules = limit(app, "max-rules-per-classifier", l -> toLong(l.maxRulesPerClassifier()));
                if (rules > maxRules.value()) {
                    throw over(app, rules + " rules in classifier '" + b.name() + "'", maxRules);
                }
                for (String p : patterns(d.get(), b)) {
                    patterns++;
                    patternBytes += p.getBytes(StandardCharsets.UTF_8).length;
                }
            }
        }
        Applied maxPatterns = limit(app, "max-patterns", l -> toLong(l.maxPatterns()));
        if (patterns > maxPatterns.value()) {
            throw over(app, patterns + " payload patterns", maxPatterns);
        }
        Applied maxBytes = limit(
                app,
                "max-pattern-bytes",
                l -> l.maxPatternBytes() == null ? null : l.maxPatternBytes().toBytes());
        if (patternBytes > maxBytes.value()) {
            throw over(app, patternBytes + " bytes of payload patterns", maxBytes);
        }
    }

    private Applied limit(String app, String key, Function<AppLimits, Long> field) {
        for (String entry : new String[] {app, LimitsProperties.DEFAULT_APP}) {
            AppLimits l = limits.get(entry);
            Long v = l == null ? null : field.apply(l);
            if (v != null) {
                return new Applied(v, "openbox.limits.apps." + entry + "." + key);
            }
        }
        return new Applied(
                field.apply(AppLimits.BUILT_IN), "openbox.limits.apps." + LimitsProperties.DEFAULT_APP + "." + key);
    }

    private static IllegalArgumentException over(String app, String what, Applied limit) {
        return new IllegalArgumentException(
                "app " + app + ": " + what + " exceed " + limit.property() + "=" + limit.value());
    }

    private static Long toLong(Integer v) {
        return v == null ? null : v.longValue();
    }

    /** Rules of a classifier: its outputs, one per element of the array argument they follow. */
    private static int rules(BlockDescriptor d, Block b) {
        if (d.blockClass() != BlockClass.CLASSIFIER || d.outputs().arg() == null || b.config() == null) {
            return 0;
        }
        JsonNode list = b.config().get(d.outputs().arg());
        return list != null && list.isArray() ? list.size() : 0;
    }

    /** The Hyperscan-compiled payload patterns of a block. */
    private static List<String> patterns(BlockDescriptor d, Block b) {
        if (b.config() == null) {
            return List.of();
        }
        java.util.ArrayList<String> out = new java.util.ArrayList<>();
        if (REGEX_PATTERN_BLOCKS.contains(b.type())) {
            b.config().path("pattern").forEach(p -> out.add(p.asText()));
        }
        for (ArgDescriptor a : d.config()) {
            ArgType type = a.argType();
            if (type.kind() == ArgType.Kind.HEADER_PAYLOAD_MATCH) {
                JsonNode v = b.config().get(a.name());
                for (JsonNode rule : v == null ? List.<JsonNode>of() : type.array() ? v : List.of(v)) {
                    rule.path("payload_match")
                            .forEach(p -> out.add(p.path("pattern").asText()));
                }
            }
        }
        return out;
    }
}
