package org.openbox.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.graph.Block;

class BlockCountersTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Catalogue CATALOGUE = Catalogue.load();

    private static Block block(String type, String config) throws Exception {
        return new Block(type, "b", (ObjectNode) JSON.readTree(config));
    }

    private static List<BlockCounters.Read> reads(String type, String config, int maxRules) throws Exception {
        return BlockCounters.reads(CATALOGUE.find(type).orElseThrow(), block(type, config), maxRules);
    }

    @Test
    void aHeaderClassifierIsReadAsPerRuleArraysAndItsNoMatchCount() throws Exception {
        List<BlockCounters.Read> r = reads("HeaderClassifier", "{\"match\": [{}, {}]}", 256);
        assertThat(r).extracting(BlockCounters.Read::name).containsExactly("count", "byte_count", "no_match");
        assertThat(r.get(0).kind()).isEqualTo(BlockCounters.Kind.RULE_ARRAY);
        assertThat(r.get(2).kind()).isEqualTo(BlockCounters.Kind.SCALAR);

        List<DataPlaneMeters.Sample> s =
                BlockCounters.samples("fw", "cls", 7, r.get(0), List.of(JSON.readTree("[3, 4]")));
        assertThat(s)
                .extracting(DataPlaneMeters.Sample::name)
                .containsExactly("openbox.rule.hits", "openbox.rule.hits", "openbox.block.counter");
        assertThat(s).extracting(DataPlaneMeters.Sample::value).containsExactly(3.0, 4.0, 7.0);
        assertThat(s.get(1).tags().stream().map(t -> t.getKey() + "=" + t.getValue()))
                .containsExactlyInAnyOrder("app=fw", "block=cls", "dpid=7", "rule=1");
    }

    @Test
    void anIndexedFamilyIsReadRuleByRuleUpToTheBound() throws Exception {
        List<BlockCounters.Read> r = reads("RegexClassifier", "{\"pattern\": [\"a\", \"b\", \"c\"]}", 2);
        BlockCounters.Read count =
                r.stream().filter(x -> x.name().equals("count")).findFirst().orElseThrow();
        assertThat(count.kind()).isEqualTo(BlockCounters.Kind.RULE_INDEXED);
        assertThat(count.handles()).containsExactly("count_0", "count_1");
        // an unanswered rule is left out, the others still count
        List<JsonNode> answers = Arrays.asList(JSON.readTree("5"), null);
        assertThat(BlockCounters.samples("ips", "sigs", 1, count, answers))
                .extracting(DataPlaneMeters.Sample::value)
                .containsExactly(5.0, 5.0);
    }

    @Test
    void onlyNumericCounterHandlesAreRead() throws Exception {
        // FromDevice: count, byte_count and offloads; not rates, not the string drops.
        // ToDevice: count and drops, not its system-call figure
        assertThat(reads("FromDevice", "{\"devname\": \"eth0\"}", 256))
                .extracting(BlockCounters.Read::name)
                .containsExactly("count", "byte_count", "offloads");
        assertThat(reads("ToDevice", "{\"devname\": \"eth0\"}", 256))
                .extracting(BlockCounters.Read::name)
                .containsExactly("count", "drops");
        assertThat(reads("NetworkDirectionSwap", "{}", 256)).isEmpty();
        // a value that is not a number gives no sample
        BlockCounters.Read drops = new BlockCounters.Read("drops", BlockCounters.Kind.SCALAR, List.of("drops"));
        assertThat(BlockCounters.samples("a", "q", 1, drops, List.of(JSON.readTree("\"12 ring\""))))
                .isEmpty();
    }
}
