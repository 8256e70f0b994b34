package org.openbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.graph.Graph;

/**
 * Every case of the shared graph vectors ({@code protocol/vectors/graphs/*.json}, which the
 * OBI's compile_graph runs too, obi/tests/graph_vectors): a valid graph passes the
 * {@link GraphChecker}, an invalid one fails with exactly the error type and subtype the case
 * names. A case may set {@code limits} ({@code max_blocks}, {@code max_depth}).
 */
class GraphVectorsTest {

    private static final Catalogue CATALOGUE = Catalogue.load();
    private static final ObjectMapper JSON = new MessageCodec().mapper();

    static Path vectors() {
        return Path.of(System.getProperty("openbox.root", "../.."), "protocol", "vectors", "graphs");
    }

    @TestFactory
    Stream<DynamicTest> everyGraphVector() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(vectors())) {
            files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        assertFalse(files.isEmpty(), "no graph vectors under " + vectors().toAbsolutePath());
        List<DynamicTest> tests = new ArrayList<>();
        for (Path f : files) {
            JsonNode cases = JSON.readTree(f.toFile());
            for (int i = 0; i < cases.size(); i++) {
                JsonNode c = cases.get(i);
                String name =
                        f.getFileName() + "[" + i + "] " + c.path("description").asText();
                tests.add(DynamicTest.dynamicTest(name, () -> run(c)));
            }
        }
        return tests.stream();
    }

    private static void run(JsonNode c) throws IOException {
        Graph graph = JSON.treeToValue(c.get("graph"), Graph.class);
        JsonNode l = c.path("limits");
        GraphChecker checker = new GraphChecker(
                CATALOGUE,
                new GraphChecker.Limits(
                        l.path("max_blocks").asInt(GraphChecker.Limits.DEFAULT.maxBlocks()),
                        l.path("max_depth").asInt(GraphChecker.Limits.DEFAULT.maxDepth())));
        JsonNode expect = c.get("expect");
        assertNotNull(expect, "case without expect");
        if (expect.isTextual()) {
            assertEquals("valid", expect.asText());
            checker.check(graph);
            return;
        }
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> checker.check(graph));
        assertEquals(expect.get("error_type").asText(), e.subtype().type().name(), e.getMessage());
        assertEquals(expect.get("error_subtype").asText(), e.subtype().name(), e.getMessage());
    }
}
