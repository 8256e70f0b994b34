package org.openbox.catalogue;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One configuration argument of a block type.
 *
 * @param type         argument type as written in the descriptor, e.g. {@code integer} or {@code header_match[]}
 * @param defaultValue the documented default, or null when there is none
 */
public record ArgDescriptor(String name, String type, boolean required, JsonNode defaultValue, String description) {

    /** The parsed form of {@link #type()}. */
    public ArgType argType() {
        return ArgType.parse(type);
    }
}
