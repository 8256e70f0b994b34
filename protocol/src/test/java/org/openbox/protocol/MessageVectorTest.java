package org.openbox.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.message.Message;

/**
 * Runs every vector under protocol/vectors/messages: a valid one decodes and encodes back to
 * equal JSON (the same text by {@link MessageCodec#encode} and {@link MessageCodec#encodeBytes}), and both satisfy the message's schema; an invalid one is rejected with exactly the error type and subtype it names.
 * The directory names the message type the body is posted as.
 */
class MessageVectorTest {
    private final MessageCodec codec = new MessageCodec();
    private final Schemas schemas = new Schemas(Vectors.protocol().resolve("schema"));

    @Test
    void everyMessageVector() throws Exception {
        Path dir = Vectors.protocol().resolve("vectors/messages");
        List<String> failures = new ArrayList<>();
        int valid = 0;
        int invalid = 0;
        for (Path file : Vectors.jsonFiles(dir)) {
            String name = dir.relativize(file).toString();
            String pathType = file.getParent().getFileName().toString();
            if (pathType.equals("unknown")) {
                pathType = null;
            }
            JsonNode v = Vectors.read(file);
            byte[] body = v.has("raw")
                    ? v.get("raw").asText().getBytes(StandardCharsets.UTF_8)
                    : Vectors.MAPPER.writeValueAsBytes(v.get("message"));
            JsonNode expect = v.get("expect");
            if (expect.isTextual() && expect.asText().equals("valid")) {
                valid++;
                try {
                    Message m = codec.decode(pathType, body);
                    JsonNode want = v.has("encoded") ? v.get("encoded") : v.get("message");
                    String text = codec.encode(m);
                    JsonNode got = Vectors.MAPPER.readTree(text);
                    if (!Vectors.jsonEquals(want, got)) {
                        failures.add(name + ": re-encoded as " + got + "\n    expected " + want);
                    }
                    String bytes = new String(codec.encodeBytes(m), StandardCharsets.UTF_8);
                    if (!bytes.equals(text)) {
                        failures.add(name + ": encodeBytes gave " + bytes + "\n    encode gave " + text);
                    }
                    String dirType = file.getParent().getFileName().toString();
                    String problems = Schemas.problems(schemas.message(dirType), v.get("message"))
                            + Schemas.problems(schemas.message(dirType), got);
                    if (!problems.isEmpty()) {
                        failures.add(name + ": does not satisfy its schema: " + problems);
                    }
                } catch (ProtocolException e) {
                    failures.add(name + ": rejected " + e.subtype() + ": " + e.getMessage());
                }
            } else {
                invalid++;
                String wantType = expect.get("error_type").asText();
                String wantSub = expect.get("error_subtype").asText();
                try {
                    codec.decode(pathType, body);
                    failures.add(name + ": accepted, expected " + wantType + "/" + wantSub);
                } catch (ProtocolException e) {
                    if (!e.type().name().equals(wantType) || !e.subtype().name().equals(wantSub)) {
                        failures.add(name + ": got " + e.type() + "/" + e.subtype() + " (" + e.getMessage()
                                + "), expected " + wantType + "/" + wantSub);
                    }
                }
            }
        }
        int n = valid + invalid;
        System.out.println("protocol message vectors: " + n + " run (" + valid + " valid, " + invalid + " invalid)");
        assertTrue(n >= 150, "expected at least 150 message vectors, found " + n);
        assertEquals(List.of(), failures, String.join("\n", failures));
    }
}
