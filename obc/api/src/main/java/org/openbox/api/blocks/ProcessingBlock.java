package org.openbox.api.blocks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.openbox.api.InvalidGraphException;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.graph.Block;

/**
 * Base of the typed blocks: one subclass per catalogue block type, named like the type.
 * Constructors take the block name and the required arguments; fluent setters write the
 * optional ones. Every setter writes a catalogue argument of the same type (a test checks this
 * against the catalogue). A block is added to a graph with
 * {@link org.openbox.api.GraphBuilder}, which snapshots its config, so the built graph does not
 * change when the block object is changed later.
 */
public abstract class ProcessingBlock {

    private final String name;
    private final ObjectNode config = JsonNodeFactory.instance.objectNode();

    protected ProcessingBlock(String name) {
        Objects.requireNonNull(name, "block name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a block name must not be blank");
        }
        this.name = name;
    }

    /** The catalogue block type: the class's simple name. */
    public String type() {
        return getClass().getSimpleName();
    }

    /** The block name, unique in its graph; handles and alerts refer to it. */
    public final String name() {
        return name;
    }

    /** A copy of the configuration written so far. */
    public final ObjectNode config() {
        return config.deepCopy();
    }

    /** The protocol form of the block (a snapshot). */
    public Block toBlock() {
        return new Block(type(), name, config.deepCopy());
    }

    /**
     * Checks what the generic catalogue check cannot: rule syntax, value ranges, argument
     * combinations. Called by {@link org.openbox.api.GraphBuilder#build()}.
     *
     * @throws InvalidGraphException naming this block
     */
    public void check() {}

    protected final void set(String arg, String value) {
        config.put(arg, Objects.requireNonNull(value, arg));
    }

    protected final void set(String arg, long value) {
        config.put(arg, value);
    }

    protected final void set(String arg, double value) {
        config.put(arg, value);
    }

    protected final void set(String arg, boolean value) {
        config.put(arg, value);
    }

    protected final void set(String arg, JsonNode value) {
        config.set(arg, Objects.requireNonNull(value, arg));
    }

    /** The array argument {@code arg}, created empty when absent. */
    protected final ArrayNode list(String arg) {
        JsonNode a = config.get(arg);
        return a instanceof ArrayNode array ? array : config.putArray(arg);
    }

    /** Number of elements of array argument {@code arg} (0 when absent). */
    protected final int size(String arg) {
        JsonNode a = config.get(arg);
        return a == null ? 0 : a.size();
    }

    protected final JsonNode get(String arg) {
        return config.get(arg);
    }

    /** An error naming this block. */
    protected final InvalidGraphException invalid(ErrorSubtype subtype, String what) {
        return new InvalidGraphException(subtype, "block '" + name + "' (" + type() + "): " + what);
    }

    protected final void requireRange(String arg, long min, long max) {
        JsonNode v = config.get(arg);
        if (v != null && v.isIntegralNumber() && (v.asLong() < min || v.asLong() > max)) {
            throw invalid(ErrorSubtype.BAD_BLOCK, arg + " must be in " + min + ".." + max + ", got " + v.asLong());
        }
    }

    protected final void requireRules(String arg, String what) {
        if (size(arg) == 0) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "has no " + what);
        }
    }

    /** Requires the string array {@code arg} to be non-empty and each element a regular expression. */
    protected final void requirePatterns(String arg) {
        requireRules(arg, arg + "s");
        for (int i = 0; i < size(arg); i++) {
            requireRegex(get(arg).get(i).asText(), arg + " " + i, ErrorSubtype.BAD_BLOCK);
        }
    }

    /** Checks a regular expression with java.util.regex (a first check; the OBI compiles it with Hyperscan). */
    protected final void requireRegex(String regex, String where, ErrorSubtype subtype) {
        try {
            Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw invalid(subtype, where + ": bad regular expression '" + regex + "': " + e.getDescription());
        }
    }

    @Override
    public String toString() {
        return type() + " " + name + " " + config;
    }
}
