package org.openbox.api.blocks;

/**
 * Replaces a gzip-encoded HTTP body in the packet by its decompressed form (so later payload classifiers see plain text); other packets pass unchanged. Spec 5.34 names decompressors without a configuration; this one is the project's.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.34.
 * Config: max_size (integer).
 * Read handles: count, failures.
 * Write handles: reset_counts.
 * <pre>new GzipDecompressor("gunzip")</pre>
 */
public final class GzipDecompressor extends ProcessingBlock {

    public GzipDecompressor(String name) {
        super(name);
    }

    /** Largest decompressed body in bytes; longer bodies are truncated. */
    public GzipDecompressor maxSize(int value) {
        set("max_size", value);
        return this;
    }
}
