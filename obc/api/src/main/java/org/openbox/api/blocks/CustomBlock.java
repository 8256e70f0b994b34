package org.openbox.api.blocks;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A block of a type the typed classes do not cover, e.g. one added by a custom module. Its
 * config is checked against the descriptor the graph builder's catalogue holds for the type.
 * <pre>new CustomBlock("Sampler", "s").arg("one_in", IntNode.valueOf(10))</pre>
 */
public final class CustomBlock extends ProcessingBlock {

    private final String type;

    public CustomBlock(String type, String name) {
        super(name);
        this.type = Objects.requireNonNull(type, "block type");
    }

    @Override
    public String type() {
        return type;
    }

    /** Sets a config argument to any JSON value. */
    public CustomBlock arg(String arg, JsonNode value) {
        set(arg, value);
        return this;
    }
}
