package org.openbox.controller.apps;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openbox.api.GraphBuilder;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderPayloadClassifier;
import org.openbox.api.blocks.RegexMatcher;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;
import org.openbox.api.match.PayloadPattern;
import org.openbox.catalogue.Catalogue;
import org.openbox.controller.LimitsProperties;
import org.openbox.controller.LimitsProperties.AppLimits;
import org.openbox.protocol.graph.Graph;
import org.springframework.util.unit.DataSize;

/** What the per-application limits count, which property applies, and how a refusal reads. */
class AppLimitsCheckTest {

    private static final Catalogue CATALOGUE = Catalogue.load();

    private static AppLimitsCheck check(Map<String, AppLimits> apps) {
        return new AppLimitsCheck(new LimitsProperties(
                DataSize.ofMegabytes(64),
                64,
                DataSize.ofMegabytes(64),
                4096,
                Duration.ofSeconds(30),
                Duration.ofHours(1),
                apps));
    }

    /** A header-payload classifier with `rules` rules of two patterns each ("abcd", "efgh"), then a RegexMatcher. */
    private static Graph ips(int rules) {
        HeaderPayloadClassifier hpc = new HeaderPayloadClassifier("sig");
        for (int i = 0; i < rules; i++) {
            hpc.rule(Match.of().tcpDst(80), PayloadPattern.literal("abcd"), PayloadPattern.regex("efgh"));
        }
        RegexMatcher rm = new RegexMatcher("rm").pattern("ijkl");
        GraphBuilder b = new GraphBuilder().connect(new FromDevice("in", "eth0"), hpc);
        for (int i = 0; i < rules; i++) {
            b.connect(hpc, i, rm);
        }
        return b.connect(rm, 0, new Discard("hit"))
                .connect(rm, 1, new ToDevice("out", "eth1"))
                .build()
                .toGraph();
    }

    @Test
    void payloadPatternsOfEveryGraphAreCountedAgainstTheDefault() {
        AppLimitsCheck c = check(Map.of("default", new AppLimits(null, 10, null, null)));
        // 2 x (2 x 2 + 1) = 10 patterns: at the limit
        assertThatCode(() -> c.check("ips", List.of(ips(2), ips(2)), CATALOGUE)).doesNotThrowAnyException();
        assertThatThrownBy(() -> c.check("ips", List.of(ips(2), ips(3)), CATALOGUE))
                .hasMessage("app ips: 12 payload patterns exceed openbox.limits.apps.default.max-patterns=10");
    }

    @Test
    void anApplicationsOwnLimitOverridesTheDefault() {
        AppLimitsCheck c = check(Map.of(
                "default",
                new AppLimits(null, 10, null, null),
                "ips",
                new AppLimits(null, 100, DataSize.ofBytes(20), null)));
        assertThatThrownBy(() -> c.check("ips", List.of(ips(3)), CATALOGUE))
                .hasMessage(
                        "app ips: 28 bytes of payload patterns exceed openbox.limits.apps.ips.max-pattern-bytes=20");
        assertThatThrownBy(() -> c.check("other", List.of(ips(5)), CATALOGUE))
                .hasMessage("app other: 11 payload patterns exceed openbox.limits.apps.default.max-patterns=10");
    }

    @Test
    void classifierRulesAndBlocksAreLimitedPerBlockAndPerGraph() {
        AppLimitsCheck rules = check(Map.of("default", new AppLimits(2, null, null, null)));
        assertThatThrownBy(() -> rules.check("ips", List.of(ips(3)), CATALOGUE))
                .hasMessage(
                        "app ips: 3 rules in classifier 'sig' exceed openbox.limits.apps.default.max-rules-per-classifier=2");
        AppLimitsCheck blocks = check(Map.of("fw", new AppLimits(null, null, null, 4)));
        assertThatThrownBy(() -> blocks.check("fw", List.of(ips(1)), CATALOGUE))
                .hasMessage("app fw: 5 blocks in one graph exceed openbox.limits.apps.fw.max-blocks-per-graph=4");
    }

    @Test
    void builtInDefaultsAreNamedAsTheDefaultProperty() {
        AppLimitsCheck c = check(Map.of());
        assertThatCode(() -> c.check("ips", List.of(ips(500)), CATALOGUE)).doesNotThrowAnyException();
        assertThatThrownBy(() -> c.check("ips", List.of(ips(10_001)), CATALOGUE))
                .hasMessage("app ips: 20003 payload patterns exceed openbox.limits.apps.default.max-patterns=20000");
    }

    @Test
    void aLimitMustBePositive() {
        assertThatThrownBy(() -> check(Map.of("ips", new AppLimits(0, null, null, null))))
                .hasMessage("openbox.limits.apps.ips.max-rules-per-classifier must be positive, not 0");
    }
}
