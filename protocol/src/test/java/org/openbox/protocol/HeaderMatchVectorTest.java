package org.openbox.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.match.FieldMatch;
import org.openbox.protocol.match.HeaderMatch;
import org.openbox.protocol.match.HeaderMatchParser;

/**
 * Runs every case under protocol/vectors/header-match: value cases parse to the expected
 * canonical terms (or fail with BAD_HEADER_MATCH); whole-match cases check names and
 * prerequisites. Valid cases also round-trip through toWireValue / toWire.
 */
class HeaderMatchVectorTest {
    @Test
    void everyHeaderMatchCase() {
        Path dir = Vectors.protocol().resolve("vectors/header-match");
        List<String> failures = new ArrayList<>();
        int n = 0;
        for (Path file : Vectors.jsonFiles(dir)) {
            for (JsonNode c : Vectors.read(file)) {
                n++;
                String where = file.getFileName() + ": " + c.get("description").asText();
                boolean wantError =
                        c.get("expect").isTextual() && c.get("expect").asText().equals("BAD_HEADER_MATCH");
                try {
                    JsonNode got;
                    if (c.has("match")) {
                        HeaderMatchParser.parse(c.get("match"));
                        got = null;
                    } else {
                        got = HeaderMatchParser.parseValue(c.get("field").asText(), c.get("value"))
                                .toCanonical();
                    }
                    if (wantError) {
                        failures.add(where + ": accepted" + (got == null ? "" : " as " + got));
                    } else if (got != null && !Vectors.jsonEquals(c.get("expect"), got)) {
                        failures.add(where + ": got " + got + ", expected " + c.get("expect"));
                    }
                } catch (ProtocolException e) {
                    if (!wantError) {
                        failures.add(where + ": rejected: " + e.getMessage());
                    } else if (e.subtype() != ErrorSubtype.BAD_HEADER_MATCH) {
                        failures.add(where + ": got " + e.subtype());
                    }
                }
            }
        }
        System.out.println("header-match vectors: " + n + " run");
        assertTrue(n >= 100, "expected at least 100 header-match cases, found " + n);
        assertEquals(List.of(), failures, String.join("\n", failures));
    }

    @Test
    void validCasesRoundTripThroughWireValues() {
        Path dir = Vectors.protocol().resolve("vectors/header-match");
        List<String> failures = new ArrayList<>();
        int n = 0;
        for (Path file : Vectors.jsonFiles(dir)) {
            for (JsonNode c : Vectors.read(file)) {
                if (!c.get("expect").isObject() && !c.get("expect").asText().equals("valid")) {
                    continue;
                }
                n++;
                String where = file.getFileName() + ": " + c.get("description").asText();
                if (c.has("match")) {
                    HeaderMatch m = HeaderMatchParser.parse(c.get("match"));
                    HeaderMatch back = HeaderMatchParser.parse(m.toWire());
                    if (!back.equals(m)) {
                        failures.add(where + ": " + m.toWire() + " parsed back as " + back);
                    }
                } else {
                    FieldMatch m = HeaderMatchParser.parseValue(c.get("field").asText(), c.get("value"));
                    JsonNode wire = m.toWireValue();
                    FieldMatch back = HeaderMatchParser.parseValue(m.field().name(), wire);
                    if (!back.equals(m)) {
                        failures.add(where + ": wire " + wire + " parsed back as " + back.toCanonical() + ", expected "
                                + m.toCanonical());
                    }
                }
            }
        }
        assertTrue(n >= 50, "too few valid header-match cases: " + n);
        assertEquals(List.of(), failures, String.join("\n", failures));
    }
}
