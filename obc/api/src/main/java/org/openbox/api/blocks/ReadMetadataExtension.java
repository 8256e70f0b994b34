package org.openbox.api.blocks;

/**
 * Classifies packets by a value in their metadata. Output 0: the key is absent or no value
 * matched; output i+1: metadata[key] equals the i-th value.
 *
 * <p>Conveniences beside the generated {@link ReadMetadata}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/ReadMetadata.json.
 * <pre>new ReadMetadata("which-app", "app").value("ips").value("fw")  // outputs 1, 2; 0 otherwise</pre>
 */
public abstract class ReadMetadataExtension extends ProcessingBlock {

    ReadMetadataExtension(String name) {
        super(name);
    }

    public ReadMetadata value(String value) {
        list("values").add(value);
        return (ReadMetadata) this;
    }

    public ReadMetadata value(long value) {
        list("values").add(value);
        return (ReadMetadata) this;
    }

    @Override
    public void check() {
        requireRules("values", "values");
    }
}
