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
public final class ReadMetadata extends ProcessingBlock {

    public ReadMetadata(String name, String key) {
        super(name);
        set("key", key);
        list("values");
    }

    public ReadMetadata value(String value) {
        list("values").add(value);
        return this;
    }

    public ReadMetadata value(long value) {
        list("values").add(value);
        return this;
    }

    @Override
    public void check() {
        requireRules("values", "values");
    }
}
