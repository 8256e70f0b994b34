package org.openbox.api.blocks;

/**
 * Classifies packets by a value in their metadata. Output 0: the key is absent or no value
 * matched; output i+1: metadata[key] equals the i-th value.
 *
 * <p>Ports: 1 input, one output per value plus 1. Class: classifier; spec 5.41 (configuration
 * our own). Config: key (string, required), values (any[], required).
 * Read handles: count, byte_count, rate, byte_rate, count_i, byte_count_i, rate_i, byte_rate_i
 * (output i). Write handles: reset_i, reset_all_counts, reset_counts.
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
