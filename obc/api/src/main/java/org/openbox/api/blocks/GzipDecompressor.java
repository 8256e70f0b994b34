package org.openbox.api.blocks;

/**
 * Replaces a gzip-encoded HTTP body in the packet by its decompressed form (so later payload
 * classifiers see plain text); other packets pass unchanged. A body that inflates past max_size
 * (a decompression bomb) is dropped and counted. Spec 5.34 names decompressors without a
 * configuration; this one is the project's.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.34.
 * Config: max_size (integer).
 * Read handles: count, failures, oversize.
 * Write handles: reset_counts.
 * <pre>new GzipDecompressor("gunzip")</pre>
 */
public final class GzipDecompressor extends ProcessingBlock {

    public GzipDecompressor(String name) {
        super(name);
    }

    /** Largest decompressed body in bytes, 64..9000 (default 8192); a longer body is dropped. */
    public GzipDecompressor maxSize(int value) {
        set("max_size", value);
        return this;
    }

    @Override
    public void check() {
        requireRange("max_size", 64, 9000);
    }
}
