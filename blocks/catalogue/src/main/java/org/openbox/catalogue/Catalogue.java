package org.openbox.catalogue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.openbox.protocol.graph.Block;

/**
 * The block catalogue: every block type a graph may use, with its descriptor. {@link #load()}
 * reads the descriptors packaged in this jar (openbox/catalogue/*.json, found by listing the
 * resource directory, so adding a descriptor file is all it takes). Immutable and thread-safe.
 */
public final class Catalogue {

    /** Classpath directory of the packaged descriptors. */
    public static final String RESOURCE_DIR = "openbox/catalogue";

    static final String SCHEMA_FILE = "catalogue.schema.json";

    private final Map<String, BlockDescriptor> blocks;
    private final ConfigValidator validator = new ConfigValidator();

    private Catalogue(Map<String, BlockDescriptor> blocks) {
        this.blocks = Collections.unmodifiableMap(blocks);
    }

    /** Every descriptor packaged in the jar. */
    public static Catalogue load() {
        ObjectMapper mapper = new ObjectMapper();
        List<BlockDescriptor> list = new ArrayList<>();
        ClassLoader loader = Catalogue.class.getClassLoader();
        for (String file : ResourceLister.list(loader, RESOURCE_DIR)) {
            if (!file.endsWith(".json") || file.equals(SCHEMA_FILE)) {
                continue;
            }
            try (InputStream in = loader.getResourceAsStream(RESOURCE_DIR + "/" + file)) {
                if (in == null) {
                    throw new IllegalStateException("catalogue resource vanished: " + file);
                }
                list.add(parse(mapper.readTree(in), file));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read catalogue descriptor " + file, e);
            }
        }
        if (list.isEmpty()) {
            throw new IllegalStateException("no block descriptors found under classpath " + RESOURCE_DIR);
        }
        return of(list);
    }

    /** The descriptors in a directory (e.g. blocks/catalogue of a source tree). */
    public static Catalogue load(Path dir) {
        ObjectMapper mapper = new ObjectMapper();
        try (Stream<Path> files = Files.list(dir)) {
            List<BlockDescriptor> list = new ArrayList<>();
            for (Path p : files.sorted().toList()) {
                String file = p.getFileName().toString();
                if (file.endsWith(".json") && !file.equals(SCHEMA_FILE)) {
                    list.add(parse(mapper.readTree(p.toFile()), file));
                }
            }
            return of(list);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read catalogue directory " + dir, e);
        }
    }

    /** A catalogue of the given descriptors (sorted by name; names must be unique). */
    public static Catalogue of(Collection<BlockDescriptor> descriptors) {
        Map<String, BlockDescriptor> map = new LinkedHashMap<>();
        descriptors.stream().sorted((a, b) -> a.name().compareTo(b.name())).forEach(d -> {
            if (map.putIfAbsent(d.name(), d) != null) {
                throw new IllegalArgumentException("duplicate block descriptor " + d.name());
            }
        });
        return new Catalogue(map);
    }

    /** Parses one descriptor JSON object (e.g. the translation of a custom module). */
    public static BlockDescriptor parse(JsonNode descriptor) {
        return DescriptorParser.parse(descriptor);
    }

    private static BlockDescriptor parse(JsonNode json, String file) {
        BlockDescriptor d = DescriptorParser.parse(json);
        if (!file.equals(d.name() + ".json")) {
            throw new IllegalStateException("descriptor file " + file + " holds block " + d.name());
        }
        return d;
    }

    /** This catalogue plus {@code d}, replacing a descriptor of the same name. */
    public Catalogue with(BlockDescriptor d) {
        Map<String, BlockDescriptor> map = new LinkedHashMap<>(blocks);
        map.put(d.name(), d);
        return of(map.values());
    }

    public Optional<BlockDescriptor> find(String type) {
        return Optional.ofNullable(type == null ? null : blocks.get(type));
    }

    /** True when {@code other} describes the same block types, descriptor for descriptor. */
    public boolean sameTypes(Catalogue other) {
        return other == this || other != null && other.blocks.equals(blocks);
    }

    /** Every descriptor, ordered by name. */
    public Collection<BlockDescriptor> all() {
        return blocks.values();
    }

    /**
     * Generic config check of one block against its descriptor.
     *
     * @throws org.openbox.protocol.ProtocolException UNSUPPORTED_BLOCK for an unknown type;
     *         BAD_BLOCK for an unknown or missing argument or a wrong JSON type (naming block and
     *         argument); BAD_HEADER_MATCH / BAD_PAYLOAD_MATCH for malformed matches
     */
    public void validate(Block b) {
        validator.validate(this, b);
    }
}
