package org.openbox.api.blocks;

/**
 * Compresses the HTTP body of packets with gzip and sets Content-Encoding; other packets, and
 * bodies gzip would not make smaller, pass unchanged. Spec 5.36 names the block without a
 * configuration; this one is the project's.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.36.
 * Config: level (integer), min_size (integer).
 * Read handles: count, incompressible.
 * Write handles: reset_counts.
 * <pre>new GzipCompressor("gzip").level(9)</pre>
 */
public final class GzipCompressor extends ProcessingBlock {

    public GzipCompressor(String name) {
        super(name);
    }

    /** Compression level, 1 (fastest) .. 9 (smallest). */
    public GzipCompressor level(int value) {
        set("level", value);
        return this;
    }

    /** Bodies shorter than this many bytes (0..9000) are left uncompressed. */
    public GzipCompressor minSize(int value) {
        set("min_size", value);
        return this;
    }

    @Override
    public void check() {
        requireRange("level", 1, 9);
        requireRange("min_size", 0, 9000);
    }
}
