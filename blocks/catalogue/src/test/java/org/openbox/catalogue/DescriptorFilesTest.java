package org.openbox.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Checks every descriptor file of blocks/catalogue against the schema and the spec's block lists. */
class DescriptorFilesTest {

    /** Spec 1.1.0 section 3.6.1, the required blocks. */
    static final List<String> REQUIRED = List.of(
            "FromDevice",
            "FromDump",
            "ToDevice",
            "ToDump",
            "Discard",
            "HeaderClassifier",
            "RegexClassifier",
            "RegexMatcher",
            "HeaderPayloadClassifier",
            "VlanEncapsulate",
            "VlanDecapsulate",
            "DecIpTtl",
            "Ipv4AddressTranslator",
            "NetworkHeaderFieldsRewriter",
            "NetworkDirectionSwap",
            "Alert",
            "Log",
            "Queue",
            "ProtocolAnalyzer",
            "SessionClassifier",
            "SessionStore",
            "FlowTracker",
            "GzipDecompressor",
            "EncapsulateMetadata",
            "WriteMetadata",
            "ReadMetadata",
            "DecapsulateMetadata");
    /** Spec 1.1.0 section 3.6.2, the optional blocks. */
    static final List<String> OPTIONAL = List.of(
            "ContentClassifier",
            "FrontDropQueue",
            "RandomEarlyDetectionQueue",
            "BpsShaper",
            "PpsShaper",
            "BpsRateClassifier",
            "PpsRateClassifier",
            "Store",
            "Restore",
            "BeginTransaction",
            "CommitTransaction",
            "RollbackTransaction",
            "HtmlNormalizer",
            "JsNormalizer",
            "GzipCompressor");
    /** Blocks spec 1.1.0 defines in section 5 (5.44, 5.45) but leaves out of the lists of 3.6. */
    static final List<String> SECTION_5_ONLY = List.of("SetTimestamp", "SetTimestampDelta");
    /** Blocks of this project that the spec does not define (spec "extension"). */
    static final List<String> EXTENSIONS = List.of("HttpCacheResponder", "StringClassifier");

    static final ObjectMapper MAPPER = new ObjectMapper();
    static Path dir;
    static List<Path> files;

    @BeforeAll
    static void findFiles() throws IOException {
        dir = Path.of(System.getProperty("openbox.root", "../.."), "blocks", "catalogue");
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.toString().endsWith(".json") && !p.endsWith(Catalogue.SCHEMA_FILE))
                    .sorted()
                    .toList();
        }
        System.out.println("catalogue: " + files.size() + " descriptors");
    }

    @Test
    void everyDescriptorValidatesAgainstTheSchema() throws IOException {
        JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                .getSchema(MAPPER.readTree(dir.resolve(Catalogue.SCHEMA_FILE).toFile()));
        List<String> problems = new ArrayList<>();
        for (Path f : files) {
            Set<ValidationMessage> errors = schema.validate(MAPPER.readTree(f.toFile()));
            errors.forEach(e -> problems.add(f.getFileName() + ": " + e.getMessage()));
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertFalse(files.isEmpty());
    }

    @Test
    void schemaRejectsBrokenDescriptors() throws IOException {
        JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                .getSchema(MAPPER.readTree(dir.resolve(Catalogue.SCHEMA_FILE).toFile()));
        JsonNode good = MAPPER.readTree(dir.resolve("HeaderClassifier.json").toFile());
        assertTrue(schema.validate(good).isEmpty());
        String[][] edits = {
            {"/class", "\"sorter\""}, {"/outputs", "{\"per\": \"match\", \"extra\": 1}"},
            {"/outputs", "-1"}, {"/config/0/type", "\"header_matches\""},
        };
        for (String[] e : edits) {
            JsonNode bad = good.deepCopy();
            String[] path = e[0].substring(1).split("/");
            JsonNode parent = bad;
            for (int i = 0; i < path.length - 1; i++) {
                parent = parent.isArray() ? parent.get(Integer.parseInt(path[i])) : parent.get(path[i]);
            }
            ((com.fasterxml.jackson.databind.node.ObjectNode) parent).set(path[path.length - 1], MAPPER.readTree(e[1]));
            assertFalse(schema.validate(bad).isEmpty(), "schema accepted " + e[0] + " = " + e[1]);
        }
    }

    @Test
    void fileNameIsBlockName() throws IOException {
        for (Path f : files) {
            assertEquals(
                    f.getFileName().toString(),
                    MAPPER.readTree(f.toFile()).get("name").asText() + ".json");
        }
    }

    @Test
    void requiredAndOptionalSetsOfTheSpecAreComplete() {
        Catalogue c = Catalogue.load(dir);
        for (String n : REQUIRED) {
            BlockDescriptor d = c.find(n).orElseThrow(() -> new AssertionError("missing required block " + n));
            assertTrue(d.required(), n + " must be flagged required");
        }
        for (String n : OPTIONAL) {
            BlockDescriptor d = c.find(n).orElseThrow(() -> new AssertionError("missing optional block " + n));
            assertFalse(d.required(), n + " must not be flagged required");
        }
        for (BlockDescriptor d : c.all()) {
            if (d.required()) {
                assertTrue(REQUIRED.contains(d.name()), d.name() + " is flagged required but spec 3.6.1 omits it");
            }
        }
    }

    @Test
    void everyOtherBlockIsAnExtensionOfThisProject() {
        for (BlockDescriptor d : Catalogue.load(dir).all()) {
            boolean spec =
                    REQUIRED.contains(d.name()) || OPTIONAL.contains(d.name()) || SECTION_5_ONLY.contains(d.name());
            assertTrue(
                    spec || EXTENSIONS.contains(d.name()), d.name() + " is in no spec list and not a known extension");
            assertEquals(!spec, d.spec().equals("extension"), d.name() + ": spec \"" + d.spec() + "\"");
        }
        for (String n : SECTION_5_ONLY) {
            BlockDescriptor d = Catalogue.load(dir).find(n).orElseThrow(() -> new AssertionError("missing block " + n));
            assertFalse(d.required(), n + " is not among the required blocks of spec 3.6.1");
        }
        for (String n : EXTENSIONS) {
            BlockDescriptor d =
                    Catalogue.load(dir).find(n).orElseThrow(() -> new AssertionError("missing extension " + n));
            assertFalse(d.required(), n + " is an extension, not a required block");
        }
    }

    @Test
    void namesAreUniqueAndPortSpecsReferToArrayArguments() {
        for (BlockDescriptor d : Catalogue.load(dir).all()) {
            unique(
                    d.name() + " config",
                    d.config().stream().map(ArgDescriptor::name).toList());
            unique(
                    d.name() + " read handles",
                    d.readHandles().stream().map(HandleDescriptor::name).toList());
            unique(
                    d.name() + " write handles",
                    d.writeHandles().stream().map(HandleDescriptor::name).toList());
            for (PortSpec p : List.of(d.inputs(), d.outputs())) {
                if (p.kind() != PortSpec.Kind.FIXED) {
                    ArgDescriptor a = d.arg(p.arg())
                            .orElseThrow(() ->
                                    new AssertionError(d.name() + ": port spec names unknown argument " + p.arg()));
                    assertTrue(a.argType().array(), d.name() + ": port spec argument " + a.name() + " is not an array");
                }
            }
            for (ArgDescriptor a : d.config()) {
                if (a.required() && a.defaultValue() != null) {
                    fail(d.name() + "." + a.name() + ": a required argument has a default");
                }
            }
        }
    }

    private static void unique(String what, List<String> names) {
        Set<String> seen = new HashSet<>();
        for (String n : names) {
            assertTrue(seen.add(n), what + ": duplicate name " + n);
        }
    }
}
