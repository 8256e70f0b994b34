package org.openbox.api.blocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.openbox.api.match.SessionMatch;
import org.openbox.protocol.match.MatchField;

/**
 * The block configs in blocks/catalogue/vectors/api-configs.json are exactly what these API
 * calls write; the OBI's tests build the same file's blocks (obi/tests/catalogue), so the two
 * languages agree on these configs.
 */
class ApiConfigVectorsTest {

    private static final Map<String, Supplier<ProcessingBlock>> BUILDERS = Map.of(
            "SessionStore", () -> new SessionStore("remember").store(MatchField.IPV4_SRC, "client")
                    .store(MatchField.TCP_DST, "port", "0xff00"),
            "SessionClassifier", () -> new SessionClassifier("known")
                    .rule(SessionMatch.field("client", MatchField.IPV4_DST))
                    .rule(SessionMatch.value("port", "0x1f00"))
                    .rule(SessionMatch.value("client", "10.0.0.0%255.0.0.0")));

    @Test
    void theApiWritesEveryVectorsConfig() throws Exception {
        ObjectMapper json = new ObjectMapper();
        Path file = Path.of(System.getProperty("openbox.root", "../.."), "blocks", "catalogue", "vectors", "api-configs.json");
        JsonNode vectors = json.readTree(file.toFile());
        assertEquals(BUILDERS.size(), vectors.size(), "one API call per vector");
        for (JsonNode v : vectors) {
            JsonNode want = v.get("block");
            Supplier<ProcessingBlock> builder = BUILDERS.get(want.get("type").asText());
            assertNotNull(builder, "an API call for: " + v.get("description").asText());
            JsonNode got = json.valueToTree(builder.get().toBlock());
            assertEquals(want.get("config"), got.get("config"), v.get("description").asText());
            assertEquals(want.get("type"), got.get("type"));
            assertEquals(want.get("name"), got.get("name"));
        }
    }
}
