package org.openbox.controller.check;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openbox.controller.StartupProperties;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.graph.Graph;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Compiles a graph with the OBI's own engine: runs {@code obi check --graph FILE --json},
 * which builds every block as a SetProcessingGraph would (real Hyperscan compile) without
 * running it, and returns each failing block. The binary is {@code openbox.obi-binary},
 * else {@code $OPENBOX_ROOT/build/obi/obi}.
 */
@Component
public class ObiGraphChecker {

    /** A block the OBI refused; {@code rule} is the classifier rule index when the OBI names one, else -1. */
    public record BlockProblem(String block, String type, String subtype, String message, int rule) {}

    static final long TIMEOUT_SECONDS = 300;

    private final MessageCodec codec;
    private final Path binary;

    public ObiGraphChecker(MessageCodec codec, StartupProperties props, Environment env) {
        this.codec = codec;
        Path b = props.obiBinary();
        if (b == null) {
            String root = env.getProperty("OPENBOX_ROOT");
            b = root == null || root.isBlank() ? null : Path.of(root, "build", "obi", "obi");
        }
        this.binary = b;
    }

    /** The OBI executable, when one is configured and executable. */
    public Optional<Path> binary() {
        return binary != null && Files.isExecutable(binary) ? Optional.of(binary) : Optional.empty();
    }

    /** Where the OBI executable was looked for (for the message saying it is missing). */
    public String lookedFor() {
        return binary == null ? "openbox.obi-binary and OPENBOX_ROOT are unset" : binary.toString();
    }

    /** The problems of {@code graph}; empty when the OBI builds every block. */
    public List<BlockProblem> check(Graph graph) throws IOException, InterruptedException {
        Path exe = binary().orElseThrow(() -> new IllegalStateException("no OBI binary: " + lookedFor()));
        Path file = Files.createTempFile("openbox-check-", ".json");
        Path out = Files.createTempFile("openbox-check-", ".out");
        Path err = Files.createTempFile("openbox-check-", ".err");
        try {
            Files.writeString(file, codec.mapper().writeValueAsString(graph), StandardCharsets.UTF_8);
            Process p = new ProcessBuilder(exe.toString(), "check", "--graph", file.toString(), "--json")
                    .redirectErrorStream(false)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("obi check did not finish in " + TIMEOUT_SECONDS + " s");
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            JsonNode report;
            try {
                report = codec.mapper().readTree(text);
            } catch (IOException e) {
                String why = Files.readString(err, StandardCharsets.UTF_8).strip();
                throw new IOException("obi check (exit " + p.exitValue() + ") printed no report"
                        + (why.isEmpty()
                                ? ""
                                : ": " + why.lines().reduce((a, b) -> b).orElse("")));
            }
            List<BlockProblem> problems = new ArrayList<>();
            for (JsonNode e : report.path("errors")) {
                problems.add(new BlockProblem(
                        e.path("block").asText(""),
                        e.path("type").asText(""),
                        e.path("subtype").asText(""),
                        e.path("message").asText(""),
                        e.path("rule").asInt(-1)));
            }
            return problems;
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
