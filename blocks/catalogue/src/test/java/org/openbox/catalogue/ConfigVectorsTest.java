package org.openbox.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Block;

/** Runs blocks/catalogue/vectors/config-check.json, the config-check cases the OBI must agree with. */
class ConfigVectorsTest {

    @Test
    void everyVectorGivesItsExpectedResult() throws Exception {
        Path file = Path.of(
                System.getProperty("openbox.root", "../.."), "blocks", "catalogue", "vectors", "config-check.json");
        JsonNode cases = new ObjectMapper().readTree(file.toFile());
        Catalogue catalogue = Catalogue.load();
        int n = 0;
        for (JsonNode c : cases) {
            JsonNode b = c.get("block");
            Block block = new Block(
                    b.get("type").asText(),
                    b.get("name").asText(),
                    b.has("config") ? (ObjectNode) b.get("config") : null);
            String expect = c.get("expect").asText();
            String what = c.get("description").asText();
            try {
                catalogue.validate(block);
                assertEquals("valid", expect, what + ": accepted");
            } catch (ProtocolException e) {
                if (expect.equals("valid")) {
                    fail(what + ": rejected: " + e.getMessage());
                }
                assertEquals(expect, e.subtype().name(), what + ": " + e.getMessage());
                assertTrue(
                        e.getMessage().contains("'" + block.name() + "'"),
                        what + ": message names no block: " + e.getMessage());
            }
            n++;
        }
        assertTrue(n >= 20, "too few vectors: " + n);
        System.out.println("catalogue config vectors: " + n);
    }
}
