package org.openbox.controller.it;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.message.SetProcessingGraphRequest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Mutation fuzzing of the southbound channel over real HTTP: every message vector in
 * protocol/vectors/messages is mutated (bytes flipped, cut, spliced with another vector,
 * values replaced by deep nesting, long strings, out-of-range numbers, wrong types) and
 * posted to its own and to other message paths. Whatever arrives, the controller answers
 * 200 or a 4xx whose body is a protocol Error with a type and subtype, never a 5xx, and a
 * genuine OBI connected before the run keeps its session and its graph.
 *
 * <p>Deterministic by default; {@code -Dfuzz.seed=N -Dfuzz.iterations=M} runs another or
 * a longer campaign (the seed is printed so a failure can be replayed).
 *
 * <p>The campaign leaves sessions behind (valid Hellos among the mutants, some declaring a
 * few processing_blocks, on which the applications then fail): the context is not shared
 * with later test classes.
 */
@DirtiesContext
class SouthboundFuzzTest extends ControllerTestBase {

    private static final long GENUINE = 990_001;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Stands for a deeply nested value until the message is written out. */
    private static final String DEEP = "@@deeply-nested@@";

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void mutatedMessagesGetProtocolErrorsAndDisturbNothing() throws Exception {
        long seed = Long.getLong("fuzz.seed", 20261124L);
        int iterations = Integer.getInteger("fuzz.iterations", 3000);
        Random random = new Random(seed);
        List<Vector> vectors = vectors();
        assertThat(vectors).hasSizeGreaterThan(100);

        TestObi genuine = connected(GENUINE);
        int graphsBefore = genuine.received(SetProcessingGraphRequest.class).size();

        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (int i = 0; i < iterations; i++) {
            Vector v = vectors.get(random.nextInt(vectors.size()));
            String type = random.nextInt(10) == 0
                    ? vectors.get(random.nextInt(vectors.size())).type()
                    : v.type();
            byte[] body = mutate(v, vectors, random);
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(controllerUrl() + "/message/" + type))
                            .timeout(Duration.ofSeconds(30))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            statuses.merge(r.statusCode(), 1, Integer::sum);
            String replay = "seed " + seed + ", iteration " + i + ", POST /message/" + type + " "
                    + abbreviate(new String(body, StandardCharsets.UTF_8));
            assertThat(r.statusCode()).as(replay).isLessThan(500);
            if (r.statusCode() >= 400) {
                JsonNode err = json.readTree(r.body());
                assertThat(err.path("type").asText()).as(replay).isEqualTo("Error");
                assertThat(err.path("error_type").asText()).as(replay).isNotBlank();
                assertThat(err.path("error_subtype").asText()).as(replay).isNotBlank();
            }
        }
        System.out.printf("southbound fuzz: seed %d, %d messages, HTTP statuses %s%n", seed, iterations, statuses);
        assertThat(statuses.keySet())
                .as("some mutations are still valid, most are refused")
                .contains(400);

        // nothing running was disturbed: the genuine OBI is UP and got no other graph
        given().get("/api/obis/" + GENUINE).then().body("obi.state", equalTo("UP"));
        assertThat(genuine.keepAlive().statusCode()).isEqualTo(200);
        assertThat(genuine.received(SetProcessingGraphRequest.class)).hasSize(graphsBefore);
        given().get("/actuator/health").then().statusCode(200).body("status", equalTo("UP"));
    }

    private record Vector(String type, String text, JsonNode tree) {}

    private List<Vector> vectors() throws IOException {
        Path dir = Path.of(System.getProperty("user.dir"))
                .resolve("../../protocol/vectors/messages")
                .normalize();
        List<Vector> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f :
                    files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                JsonNode doc = json.readTree(f.toFile());
                JsonNode message = doc.has("message") ? doc.get("message") : doc;
                String type =
                        message.path("type").asText(f.getParent().getFileName().toString());
                if (type.isBlank() || !type.chars().allMatch(Character::isLetterOrDigit)) {
                    type = f.getParent().getFileName().toString();
                }
                out.add(new Vector(type, json.writeValueAsString(message), message));
            }
        }
        return out;
    }

    private byte[] mutate(Vector v, List<Vector> all, Random random) throws IOException {
        return switch (random.nextInt(6)) {
            case 0 -> flipBytes(v.text().getBytes(StandardCharsets.UTF_8), random);
            case 1 -> cut(v.text().getBytes(StandardCharsets.UTF_8), random);
            case 2 -> splice(v.text(), all.get(random.nextInt(all.size())).text(), random);
            default -> {
                String text = json.writeValueAsString(replaceValue(v.tree().deepCopy(), random));
                // nesting deeper than Jackson writes is put in as text
                int depth = 1 + random.nextInt(random.nextBoolean() ? 40 : 5000);
                String open = random.nextBoolean() ? "[" : "{\"a\":";
                String close = open.equals("[") ? "]" : "}";
                yield text.replace("\"" + DEEP + "\"", open.repeat(depth) + "1" + close.repeat(depth))
                        .getBytes(StandardCharsets.UTF_8);
            }
        };
    }

    private static byte[] flipBytes(byte[] b, Random random) {
        int n = 1 + random.nextInt(8);
        for (int i = 0; i < n && b.length > 0; i++) {
            b[random.nextInt(b.length)] = (byte) random.nextInt(256);
        }
        return b;
    }

    private static byte[] cut(byte[] b, Random random) {
        return java.util.Arrays.copyOf(b, b.length == 0 ? 0 : random.nextInt(b.length));
    }

    private static byte[] splice(String a, String b, Random random) {
        int i = random.nextInt(a.length() + 1);
        int j = random.nextInt(b.length() + 1);
        return (a.substring(0, i) + b.substring(j)).getBytes(StandardCharsets.UTF_8);
    }

    /** Replaces one value anywhere in the tree (or the whole message) with a hostile one. */
    private static JsonNode replaceValue(JsonNode root, Random random) {
        List<JsonNode> containers = new ArrayList<>();
        collect(root, containers, 0);
        if (containers.isEmpty()) {
            return hostile(random);
        }
        JsonNode c = containers.get(random.nextInt(containers.size()));
        if (c instanceof ObjectNode o && o.size() > 0) {
            List<String> names = new ArrayList<>();
            for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) names.add(it.next());
            o.set(names.get(random.nextInt(names.size())), hostile(random));
        } else if (c instanceof ArrayNode a && a.size() > 0) {
            a.set(random.nextInt(a.size()), hostile(random));
        } else if (c instanceof ObjectNode o) {
            o.set("x", hostile(random));
        } else if (c instanceof ArrayNode a) {
            a.add(hostile(random));
        }
        return root;
    }

    private static void collect(JsonNode n, List<JsonNode> out, int depth) {
        if (depth > 64 || !n.isContainerNode()) {
            return;
        }
        out.add(n);
        n.elements().forEachRemaining(e -> collect(e, out, depth + 1));
    }

    private static JsonNode hostile(Random random) {
        return switch (random.nextInt(11)) {
            case 0 -> NODES.textNode(DEEP);
            case 1 -> NODES.textNode("A".repeat(random.nextInt(200_000)));
            case 2 -> NODES.numberNode(new java.math.BigInteger("9".repeat(1 + random.nextInt(400))));
            case 3 -> NODES.numberNode(random.nextBoolean() ? Long.MIN_VALUE : -1L);
            case 4 -> NODES.numberNode(random.nextDouble() * 1e300);
            case 5 -> NODES.nullNode();
            case 6 -> NODES.booleanNode(random.nextBoolean());
            case 7 -> NODES.textNode(randomText(random));
            case 8 -> NODES.objectNode();
            case 9 -> NODES.arrayNode();
            default -> NODES.textNode("[[[[" + "(".repeat(random.nextInt(3000)) + "]]]]");
        };
    }

    private static String randomText(Random random) {
        StringBuilder s = new StringBuilder();
        int n = random.nextInt(64);
        for (int i = 0; i < n; i++) {
            s.appendCodePoint(random.nextInt(3) == 0 ? random.nextInt(0x10000) : 32 + random.nextInt(95));
        }
        return s.toString();
    }

    private static String abbreviate(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "... (" + s.length() + " chars)";
    }
}
