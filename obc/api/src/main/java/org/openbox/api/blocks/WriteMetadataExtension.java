package org.openbox.api.blocks;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Writes values into the packet metadata (read later by ReadMetadata or carried by
 * EncapsulateMetadata).
 *
 * <p>Conveniences beside the generated {@link WriteMetadata}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/WriteMetadata.json.
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
