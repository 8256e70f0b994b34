package org.openbox.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/** Locates the protocol directory and reads vector files; compares JSON with numbers by value. */
final class Vectors {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Vectors() {}

    /** The repository root: system property openbox.root, else the nearest parent holding protocol/README.md. */
    static Path root() {
        String prop = System.getProperty("openbox.root");
        if (prop != null && Files.isRegularFile(Path.of(prop, "protocol", "README.md"))) {
            return Path.of(prop);
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("protocol").resolve("README.md"))) {
                return p;
            }
        }
        throw new IllegalStateException("cannot find the repository root (protocol/README.md)");
    }

    static Path protocol() {
        return root().resolve("protocol");
    }

    /** Every *.json file under dir, sorted. */
    static List<Path> jsonFiles(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode read(Path p) {
        try {
            return MAPPER.readTree(p.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + p, e);
        }
    }

    /** Structural equality; object key order ignored, numbers compared by value (7 == 7.0). */
    static boolean jsonEquals(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        if (a.getNodeType() != b.getNodeType()) {
            return false;
        }
        if (a.isObject()) {
            if (a.size() != b.size()) {
                return false;
            }
            Iterator<String> names = a.fieldNames();
            while (names.hasNext()) {
                String n = names.next();
                if (!b.has(n) || !jsonEquals(a.get(n), b.get(n))) {
                    return false;
                }
            }
            return true;
        }
        if (a.isArray()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!jsonEquals(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }
}
