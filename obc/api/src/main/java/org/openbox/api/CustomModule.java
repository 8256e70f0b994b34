package org.openbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;

/**
 * A custom module an application brings along: a shared object built against the OBI
 * headers (it exports {@code obi_module_register()}) and the catalogue descriptors of the
 * block types it adds (blocks/catalogue format). The controller installs it on every OBI
 * where the application runs (AddCustomModuleRequest) before pushing a graph that uses
 * those types, and removes it (RemoveCustomModuleRequest) when no running application
 * needs it there any more.
 *
 * <p>Graphs use the new types through {@link org.openbox.api.blocks.CustomBlock}, built
 * with {@code new GraphBuilder(module.catalogue())} so they are checked against the
 * module's descriptors.
 *
 * <pre>
 * CustomModule m = CustomModule.fromFiles("sampler", Path.of("sampler.so"), Path.of("Sampler.json"));
 * </pre>
 *
 * Two applications may declare the same module (same name and same content); one
 * declaring a name that another uses for different content is refused at load.
 *
 * <p>The controller signs what it sends with its module signing key: the signature binds
 * the content, the name and the {@link #version()} ({@value #DEFAULT_VERSION} unless given),
 * and an OBI loads only modules signed by a key it trusts.
 */
public final class CustomModule {

    /** The version of a module constructed without one. */
    public static final String DEFAULT_VERSION = "1";

    private final String name;
    private final String version;
    private final byte[] content;
    private final List<JsonNode> descriptors;
    private final List<BlockDescriptor> blockTypes;
    private final String digest;

    /**
     * @param name        module name, unique per OBI (letters, digits, '_', '-', '.')
     * @param content     the shared object's bytes
     * @param descriptors one catalogue descriptor per block type the module adds
     * @throws IllegalArgumentException on an empty name or content, no descriptor, or a
     *         descriptor that does not parse (the message names the module and the descriptor)
     */
    public CustomModule(String name, byte[] content, List<? extends JsonNode> descriptors) {
        this(name, DEFAULT_VERSION, content, descriptors);
    }

    /**
     * @param version the module's version (letters, digits, '_', '-', '.', '+'), bound by its signature
     * @see #CustomModule(String, byte[], List)
     */
    public CustomModule(String name, String version, byte[] content, List<? extends JsonNode> descriptors) {
        this.name = Objects.requireNonNull(name, "module name");
        if (!name.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException(
                    "custom module name '" + name + "' must be letters, digits, '_', '-' or '.'");
        }
        this.version = Objects.requireNonNull(version, "module version");
        if (!version.matches("[A-Za-z0-9_.+-]{1,64}")) {
            throw new IllegalArgumentException("custom module '" + name + "': version '" + version
                    + "' must be 1 to 64 letters, digits, '_', '-', '.' or '+'");
        }
        Objects.requireNonNull(content, "module content");
        if (content.length == 0) {
            throw new IllegalArgumentException("custom module '" + name + "' has no content");
        }
        if (descriptors == null || descriptors.isEmpty()) {
            throw new IllegalArgumentException("custom module '" + name + "' declares no block descriptor");
        }
        this.content = content.clone();
        this.descriptors = List.copyOf(
                descriptors.stream().map(d -> (JsonNode) d.deepCopy()).toList());
        List<BlockDescriptor> types = new ArrayList<>();
        for (int i = 0; i < this.descriptors.size(); i++) {
            try {
                types.add(Catalogue.parse(this.descriptors.get(i)));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        "custom module '" + name + "': descriptor " + i + " is invalid: " + e.getMessage(), e);
            }
        }
        this.blockTypes = List.copyOf(types);
        this.digest = sha256(this.content);
    }

    /** Reads the shared object and one descriptor JSON file per block type. */
    public static CustomModule fromFiles(String name, Path sharedObject, Path... descriptorFiles) {
        return fromFiles(name, DEFAULT_VERSION, sharedObject, descriptorFiles);
    }

    /** As {@link #fromFiles(String, Path, Path...)}, with the module's version. */
    public static CustomModule fromFiles(String name, String version, Path sharedObject, Path... descriptorFiles) {
        ObjectMapper mapper = new ObjectMapper();
        try {
            List<JsonNode> d = new ArrayList<>();
            for (Path p : descriptorFiles) {
                d.add(mapper.readTree(p.toFile()));
            }
            return new CustomModule(name, version, Files.readAllBytes(sharedObject), d);
        } catch (IOException e) {
            throw new UncheckedIOException("custom module '" + name + "': " + e.getMessage(), e);
        }
    }

    public String name() {
        return name;
    }

    /** The module's version, bound by its signature. */
    public String version() {
        return version;
    }

    /** A copy of the shared object's bytes. */
    public byte[] content() {
        return content.clone();
    }

    /** SHA-256 of the content, hex: two declarations are the same module when name and digest agree. */
    public String digest() {
        return digest;
    }

    /** The descriptors as given (JSON). */
    public List<JsonNode> descriptors() {
        return descriptors.stream().map(d -> (JsonNode) d.deepCopy()).toList();
    }

    /** The parsed block types the module adds. */
    public List<BlockDescriptor> blockTypes() {
        return blockTypes;
    }

    /** The {@code translation} of AddCustomModuleRequest: {@code {"blocks": [descriptors...]}}. */
    public ObjectNode translation() {
        ObjectNode t = JsonNodeFactory.instance.objectNode();
        ArrayNode blocks = t.putArray("blocks");
        descriptors.forEach(d -> blocks.add(d.deepCopy()));
        return t;
    }

    /** The built-in catalogue plus this module's block types (for a GraphBuilder). */
    public Catalogue catalogue() {
        return extend(Catalogue.load(), List.of(this));
    }

    /** {@code base} plus the block types of every module given. */
    public static Catalogue extend(Catalogue base, List<CustomModule> modules) {
        Catalogue c = base;
        for (CustomModule m : modules) {
            for (BlockDescriptor d : m.blockTypes) {
                c = c.with(d);
            }
        }
        return c;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CustomModule m
                && m.name.equals(name)
                && m.version.equals(version)
                && Arrays.equals(m.content, content)
                && m.descriptors.equals(descriptors);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + digest.hashCode();
    }

    @Override
    public String toString() {
        return "CustomModule[" + name + " " + version + ", " + content.length + " bytes, types "
                + blockTypes.stream().map(BlockDescriptor::name).toList() + "]";
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
