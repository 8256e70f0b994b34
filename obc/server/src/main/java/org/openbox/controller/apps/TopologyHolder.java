package org.openbox.controller.apps;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.openbox.api.Topology;
import org.openbox.controller.OpenboxProperties;
import org.openbox.protocol.MessageCodec;
import org.springframework.stereotype.Component;

/**
 * The network topology (segments of OBIs) read once from {@code openbox.topology}; without
 * a file the network is flat (no segments; network-wide and per-OBI locations still work).
 */
@Component
public class TopologyHolder {

    private final Topology topology;

    public TopologyHolder(OpenboxProperties props, MessageCodec codec) {
        this.topology = load(props.topology(), codec);
    }

    public Topology topology() {
        return topology;
    }

    private static Topology load(Path file, MessageCodec codec) {
        if (file == null) {
            return new Topology(List.of());
        }
        try {
            JsonNode json = codec.mapper().readTree(Files.readAllBytes(file));
            return Topology.parse(json);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read topology file " + file + ": " + e.getMessage(), e);
        }
    }
}
