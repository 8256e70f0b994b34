package org.openbox.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaId;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

/** Loads protocol/schema (draft 2020-12), mapping the schemas' $id prefix to the directory. */
final class Schemas {
    static final String BASE = "https://openbox.org/protocol/schema/";
    private final JsonSchemaFactory factory;

    Schemas(Path schemaDir) {
        String dirUri = schemaDir.toUri().toString();
        String prefix = dirUri.endsWith("/") ? dirUri : dirUri + "/";
        factory = JsonSchemaFactory.getInstance(
                SpecVersion.VersionFlag.V202012, b -> b.schemaMappers(m -> m.mapPrefix(BASE, prefix)));
    }

    JsonSchema message(String type) {
        return factory.getSchema(SchemaLocation.of(BASE + "messages/" + type + ".schema.json"));
    }

    JsonSchema metaSchema() {
        return factory.getSchema(SchemaLocation.of(SchemaId.V202012));
    }

    /** Validation messages joined, or "" when the node is valid. */
    static String problems(JsonSchema schema, JsonNode node) {
        Set<ValidationMessage> errors = schema.validate(node);
        return errors.stream().map(ValidationMessage::getMessage).collect(Collectors.joining("; "));
    }
}
