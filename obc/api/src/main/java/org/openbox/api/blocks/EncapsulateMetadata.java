package org.openbox.api.blocks;

/**
 * Encapsulates the packet in NSH (RFC 8300, MD type 2) carrying its metadata, so that another OBI can continue the pipeline. Spec 5.39 describes the block without a configuration; this one is the project's.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.39.
 * Config: spi (integer, required), si (integer), keys (string[]).
 * Read handles: count, dropped.
 * Write handles: reset_counts.
 * <pre>new EncapsulateMetadata("nsh-in", 42).keys("app")</pre>
 */
public final class EncapsulateMetadata extends ProcessingBlock {

    public EncapsulateMetadata(String name, int spi) {
        super(name);
        set("spi", spi);
    }

    /** NSH service index, 0..255. */
    public EncapsulateMetadata si(int value) {
        set("si", value);
        return this;
    }

    /** Adds to keys: metadata keys to carry; all keys when absent. */
    public EncapsulateMetadata keys(String... values) {
        for (String v : values) {
            list("keys").add(v);
        }
        return this;
    }

    @Override
    public void check() {
        requireRange("spi", 0, 0xffffff);
        requireRange("si", 0, 255);
    }
}
