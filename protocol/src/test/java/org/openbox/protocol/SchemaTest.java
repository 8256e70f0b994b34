package org.openbox.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The schema files are valid draft 2020-12 schemas that are not vacuous, and every message type
 * has a schema and enough vectors (the vectors themselves are checked by MessageVectorTest).
 */
class SchemaTest {
    private final Path protocol = Vectors.protocol();
    private final Schemas schemas = new Schemas(protocol.resolve("schema"));

    @Test
    void everySchemaFileIsAValidSchema() {
        JsonSchema meta = schemas.metaSchema();
        List<Path> files = Vectors.jsonFiles(protocol.resolve("schema"));
        assertEquals(MessageCodec.MESSAGE_TYPES.size() + 1, files.size(), "one schema per message plus common");
        List<String> failures = new ArrayList<>();
        for (Path f : files) {
            JsonNode schema = Vectors.read(f);
            String p = Schemas.problems(meta, schema);
            if (!p.isEmpty()) {
                failures.add(f.getFileName() + ": " + p);
            }
            if (!schema.path("$schema").asText().equals("https://json-schema.org/draft/2020-12/schema")) {
                failures.add(f.getFileName() + ": not declared as draft 2020-12");
            }
        }
        assertEquals(List.of(), failures);
    }

    @Test
    void metaSchemaRejectsABrokenSchema() {
        JsonNode broken = Vectors.MAPPER.createObjectNode().put("type", 12).put("minimum", "zero");
        assertFalse(Schemas.problems(schemas.metaSchema(), broken).isEmpty());
    }

    @Test
    void everyMessageTypeHasASchemaAndVectors() {
        List<String> failures = new ArrayList<>();
        for (String type : MessageCodec.MESSAGE_TYPES) {
            if (!Files.isRegularFile(protocol.resolve("schema/messages/" + type + ".schema.json"))) {
                failures.add(type + ": no schema");
            }
            Path dir = protocol.resolve("vectors/messages/" + type);
            int valid = 0;
            int invalid = 0;
            for (Path f : Files.isDirectory(dir) ? Vectors.jsonFiles(dir) : List.<Path>of()) {
                if (Vectors.read(f).get("expect").isObject()) {
                    invalid++;
                } else {
                    valid++;
                }
            }
            if (valid < 1 || invalid < 3) {
                failures.add(type + ": " + valid + " valid and " + invalid + " invalid vectors");
            }
        }
        assertEquals(List.of(), failures);
    }

    @Test
    void schemasRejectShapeErrors() {
        // the schemas are not the validator of record, but they must not be vacuous
        String[][] cases = {
            {"KeepAlive", "{\"type\": \"KeepAlive\", \"xid\": 1}"},
            {"KeepAlive", "{\"type\": \"KeepAlive\", \"xid\": -1, \"dpid\": 1}"},
            {
                "Error",
                "{\"type\": \"Error\", \"xid\": 1, \"error_type\": \"FORBIDDEN\", \"error_subtype\": \"BAD_TYPE\"}"
            },
            {
                "Hello",
                "{\"type\": \"Hello\", \"xid\": 1, \"dpid\": 1, \"version\": \"1.0\", "
                        + "\"capabilities\": {\"complex_match\": [\"some\"]}}"
            },
            {
                "SetProcessingGraphRequest",
                "{\"type\": \"SetProcessingGraphRequest\", \"xid\": 1, \"blocks\": "
                        + "[{\"type\": \"HeaderClassifier\", \"name\": \"h\", \"config\": {\"match\": [{\"tcp_dst\": true}]}}],"
                        + " \"connectors\": [{\"src\": \"h\", \"src_port\": -1, \"dst\": \"x\", \"dst_port\": 0}]}"
            },
            {
                "AddCustomModuleRequest",
                "{\"type\": \"AddCustomModuleRequest\", \"xid\": 1, \"module_name\": \"m\", "
                        + "\"module_content\": \"A*==\"}"
            },
        };
        for (String[] c : cases) {
            JsonNode node;
            try {
                node = Vectors.MAPPER.readTree(c[1]);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            assertFalse(Schemas.problems(schemas.message(c[0]), node).isEmpty(), c[1]);
        }
    }
}
