package org.openbox.catalogue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;

/**
 * Metadata of one block type, read from blocks/catalogue/&lt;name&gt;.json: class, configuration
 * arguments, read and write handles, and how many input and output ports an instance has.
 *
 * @param spec     section of OpenBox spec 1.1.0 that defines the block, or "extension"
 * @param required whether spec 3.6.1 lists the block among the required blocks
 * @param obi      whether the C++ OBI implements the block
 */
public record BlockDescriptor(
        String name,
        BlockClass blockClass,
        String spec,
        boolean required,
        boolean obi,
        String description,
        List<ArgDescriptor> config,
        List<HandleDescriptor> readHandles,
        List<HandleDescriptor> writeHandles,
        PortSpec inputs,
        PortSpec outputs) {

    public BlockDescriptor {
        config = List.copyOf(config);
        readHandles = List.copyOf(readHandles);
        writeHandles = List.copyOf(writeHandles);
    }

    public int inputCount(ObjectNode config) {
        return inputs.count(config);
    }

    public int outputCount(ObjectNode config) {
        return outputs.count(config);
    }

    public Optional<ArgDescriptor> arg(String argName) {
        for (ArgDescriptor a : config) { // a loop: config checks ask this for every block's arguments
            if (a.name().equals(argName)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** Whether {@code handle} is a read handle; {@code count_3} resolves against {@code count_i}. */
    public boolean hasReadHandle(String handle) {
        return readHandles.stream().anyMatch(h -> h.matches(handle));
    }

    /** Whether {@code handle} is a write handle; {@code reset_3} resolves against {@code reset_i}. */
    public boolean hasWriteHandle(String handle) {
        return writeHandles.stream().anyMatch(h -> h.matches(handle));
    }
}
