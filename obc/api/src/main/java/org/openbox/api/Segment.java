package org.openbox.api;

import java.util.List;
import java.util.Objects;

/** A named group of OBIs and sub-segments; a node of the topology tree. */
public record Segment(String name, List<Long> obis, List<Segment> segments) {

    public Segment {
        Objects.requireNonNull(name, "segment name");
        obis = obis == null ? List.of() : List.copyOf(obis);
        segments = segments == null ? List.of() : List.copyOf(segments);
    }
}
