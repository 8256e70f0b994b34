package org.openbox.controller.management;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class RuleLabelsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String s) throws Exception {
        return JSON.readTree(s);
    }

    @Test
    void headerMatchesReadAsTheOperatorWritesThem() throws Exception {
        assertThat(RuleLabels.label(
                        "HeaderClassifier",
                        json(
                                "{\"ETH_TYPE\": \"0x0800\", \"IP_PROTO\": \"6\", \"IPV4_DST\": \"10.0.2.20\", \"TCP_DST\": \"22\"}"),
                        "ssh_alert"))
                .isEqualTo("tcp dst 10.0.2.20 dst_port 22 -> ssh_alert");
        assertThat(RuleLabels.label(
                        "HeaderClassifier", json("{\"ETH_TYPE\": \"0x0800\", \"IPV4_SRC\": \"10.66.0.0/16\"}"), "drop"))
                .isEqualTo("src 10.66.0.0/16 -> drop");
        assertThat(RuleLabels.label("HeaderClassifier", json("{\"ip_proto\": 17, \"udp_src\": \"[53,5353]\"}"), null))
                .isEqualTo("udp src_port [53,5353]");
        assertThat(RuleLabels.label("HeaderClassifier", json("{\"ETH_TYPE\": \"0x86dd\"}"), "v6"))
                .isEqualTo("eth_type 0x86dd -> v6");
        assertThat(RuleLabels.label("HeaderClassifier", json("{}"), "out")).isEqualTo("any -> out");
    }

    @Test
    void payloadAndPatternRules() throws Exception {
        assertThat(RuleLabels.label(
                        "HeaderPayloadClassifier",
                        json("{\"header_match\": {\"IP_PROTO\": 6, \"TCP_DST\": 80},"
                                + " \"payload_match\": [{\"pattern\": \"cmd.exe\", \"is_regex\": false},"
                                + " {\"pattern\": \"a+b\", \"is_regex\": true}]}"),
                        "alert"))
                .isEqualTo("tcp dst_port 80 content \"cmd.exe\" pcre /a+b/ -> alert");
        assertThat(RuleLabels.label("RegexClassifier", json("\"^GET /admin\""), "deny"))
                .isEqualTo("/^GET /admin/ -> deny");
        assertThat(RuleLabels.label("ContentClassifier", json("\"passwd\""), null))
                .isEqualTo("content \"passwd\"");
    }

    @Test
    void hugeOrMalformedRulesStayOneShortLine() throws Exception {
        StringBuilder fields = new StringBuilder("{");
        for (int i = 0; i < 1000; i++) {
            fields.append(i == 0 ? "" : ",")
                    .append("\"F")
                    .append(i)
                    .append("\": ")
                    .append(i);
        }
        String big =
                RuleLabels.label("HeaderClassifier", json(fields.append("}").toString()), "x");
        assertThat(big)
                .hasSizeLessThanOrEqualTo(RuleLabels.MAX_LENGTH)
                .endsWith("…")
                .doesNotContain("\n");
        assertThat(RuleLabels.label("HeaderClassifier", json("[1, 2]"), null)).isEqualTo("[1,2]");
        assertThat(RuleLabels.label("HeaderPayloadClassifier", null, null)).isEqualTo("null");
        assertThat(RuleLabels.label("RegexClassifier", json("\"" + "a".repeat(5000) + "\""), "y"))
                .hasSize(RuleLabels.MAX_LENGTH);
    }
}
