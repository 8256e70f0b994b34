package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Two configs are one key exactly when they are written as the same text. */
class JsonKeyTest {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private static JsonNode json(String s) throws Exception {
        return new ObjectMapper().readTree(s);
    }

    @Test
    void equalExactlyWhenWrittenAlike() throws Exception {
        List<JsonNode> values = List.of(
                json("{\"match\":[{\"ETH_TYPE\":\"0x0800\",\"IP_PROTO\":\"6\"}]}"),
                json("{\"match\":[{\"IP_PROTO\":\"6\",\"ETH_TYPE\":\"0x0800\"}]}"), // other field order
                json("{\"match\":[{\"ETH_TYPE\":\"0x0800\",\"IP_PROTO\":6}]}"), // number, not string
                json("{\"match\":[{\"ETH_TYPE\":\"0x0800\"},{\"IP_PROTO\":\"6\"}]}"),
                json("{\"match\":[[{\"ETH_TYPE\":\"0x0800\",\"IP_PROTO\":\"6\"}]]}"),
                json("{\"a\":1.5,\"b\":null,\"c\":true,\"d\":{}}"),
                json("{\"a\":1.5,\"b\":null,\"c\":false,\"d\":{}}"),
                json("{\"a\":1.5,\"b\":null,\"c\":true,\"d\":[]}"),
                F.objectNode().put("n", 5L), // a long written as 5
                F.objectNode().put("n", 5),
                F.objectNode().put("n", "5"));
        for (JsonNode a : values) {
            for (JsonNode b : values) {
                JsonKey ka = new JsonKey(a), kb = new JsonKey(b.deepCopy());
                if (a.toString().equals(b.toString())) {
                    assertEquals(ka, kb, a + " vs " + b);
                    assertEquals(ka.hashCode(), kb.hashCode());
                } else {
                    assertNotEquals(ka, kb, a + " vs " + b);
                }
            }
        }
    }

    @Test
    void anyDepthIsWalkedWithoutRecursion() {
        ObjectNode a = F.objectNode(), b = F.objectNode();
        ObjectNode x = a, y = b;
        for (int i = 0; i < 200_000; i++) {
            x = x.putObject("k");
            y = y.putObject("k");
        }
        y.put("leaf", 1);
        assertNotEquals(new JsonKey(a), new JsonKey(b));
        x.put("leaf", 1);
        assertEquals(new JsonKey(a), new JsonKey(b));
    }
}
