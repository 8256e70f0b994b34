package org.openbox.controller.handles;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultCombinerTest {

    private final ObjectMapper json = new ObjectMapper();

    private JsonNode j(String s) throws Exception {
        return json.readTree(s);
    }

    private JsonNode combine(String... values) throws Exception {
        List<JsonNode> nodes = Arrays.stream(values)
                .map(v -> {
                    try {
                        return j(v);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                })
                .toList();
        return ResultCombiner.combine(nodes);
    }

    @Test
    void integersAreSummedAsIntegers() throws Exception {
        JsonNode r = combine("3", "4", "10");
        assertThat(r.isIntegralNumber()).isTrue();
        assertThat(r.asLong()).isEqualTo(17);
    }

    @Test
    void decimalsAreSummed() throws Exception {
        assertThat(combine("1.5", "2").asDouble()).isEqualTo(3.5);
    }

    @Test
    void arraysAreSummedElementWiseEvenWhenLengthsDiffer() throws Exception {
        assertThat(combine("[1, 2, 3]", "[10, 20]")).isEqualTo(j("[11, 22, 3]"));
    }

    @Test
    void objectsAreCombinedFieldByField() throws Exception {
        assertThat(combine("{\"a\": 1, \"b\": [1]}", "{\"a\": 2, \"c\": \"x\"}"))
                .isEqualTo(j("{\"a\": 3, \"b\": [1], \"c\": \"x\"}"));
    }

    @Test
    void nullsAreIgnoredAndOtherValuesKeepTheFirst() throws Exception {
        assertThat(combine("null", "5")).isEqualTo(j("5"));
        assertThat(combine("\"on\"", "\"off\"")).isEqualTo(j("\"on\""));
        assertThat(ResultCombiner.combine(List.of()).isNull()).isTrue();
    }

    @Test
    void hugeCountsDoNotOverflow() throws Exception {
        assertThat(combine("9223372036854775807", "1").bigIntegerValue().toString())
                .isEqualTo("9223372036854775808");
    }
}
