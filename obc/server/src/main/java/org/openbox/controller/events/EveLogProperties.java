package org.openbox.controller.events;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The EVE-style alert log, prefix {@code openbox.eve-log}: one JSON object per alert and line.
 *
 * @param enabled       write it (default true)
 * @param path          the file; default {@code eve.json} in {@code openbox.state-dir}
 * @param maxFileSize   the file is rotated (to {@code .1}, {@code .1} to {@code .2}, ...) before
 *                      it grows past this
 * @param maxFiles      files kept, the current one included; the oldest is deleted
 * @param queueCapacity alerts waiting to be written; past it an alert is dropped from the
 *                      file (counted in {@code openbox_eve_dropped_total}), never delayed
 */
@ConfigurationProperties(prefix = "openbox.eve-log")
public record EveLogProperties(
        @DefaultValue("true") boolean enabled,
        Path path,
        @DefaultValue("16MB") DataSize maxFileSize,
        @DefaultValue("5") int maxFiles,
        @DefaultValue("10000") int queueCapacity) {

    public EveLogProperties {
        if (maxFileSize == null) { // direct construction (tests)
            maxFileSize = DataSize.ofMegabytes(16);
        }
        if (maxFileSize.toBytes() < 1024) {
            throw new IllegalArgumentException(
                    "openbox.eve-log.max-file-size must be at least 1KB, got " + maxFileSize);
        }
        if (maxFiles < 1 || maxFiles > 1000) {
            throw new IllegalArgumentException("openbox.eve-log.max-files must be 1..1000, got " + maxFiles);
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("openbox.eve-log.queue-capacity must be positive, got " + queueCapacity);
        }
    }
}
