package org.openbox.api.blocks;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Writes values into the packet metadata (read later by ReadMetadata or carried by
 * EncapsulateMetadata).
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.40 (configuration our own).
 * Config: values (object, required: 1..4 keys of 1..15 bytes; integer values or strings of at
 * most 22 bytes). Read handles: count, full. Write handles: reset_counts.
 * <pre>new WriteMetadata("mark").value("app", "ips").value("mark", 3)</pre>
 */
public abstract class WriteMetadataExtension extends ProcessingBlock {

    WriteMetadataExtension(String name) {
        super(name);
    }

    public WriteMetadata value(String key, String value) {
        ((ObjectNode) get("values")).put(key, value);
        return (WriteMetadata) this;
    }

    public WriteMetadata value(String key, long value) {
        ((ObjectNode) get("values")).put(key, value);
        return (WriteMetadata) this;
    }

    @Override
    public void check() {
        requireRules("values", "values");
    }
}
