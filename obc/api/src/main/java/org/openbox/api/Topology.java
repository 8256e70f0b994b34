package org.openbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The network as a tree of named segments whose leaves are OBIs (by dpid). File format:
 * <pre>{"segments": [{"name": "dmz", "obis": [1, 2], "segments": [{"name": "web", "obis": [3]}]}]}</pre>
 * Segment names are unique in the whole tree and an OBI belongs to one segment at most.
 */
public record Topology(List<Segment> segments) {

    public Topology {
        segments = segments == null ? List.of() : List.copyOf(segments);
        Set<String> names = new HashSet<>();
        Set<Long> dpids = new HashSet<>();
        checkTree(segments, names, dpids);
    }

    public static Topology empty() {
        return new Topology(List.of());
    }

    /**
     * Reads the JSON form.
     *
     * @throws IllegalArgumentException naming the offending segment or field
     */
    public static Topology parse(JsonNode json) {
        if (json == null || !json.isObject()) {
            throw new IllegalArgumentException("topology must be a JSON object with a 'segments' array");
        }
        JsonNode s = json.get("segments");
        if (s == null || !s.isArray()) {
            throw new IllegalArgumentException("topology must have a 'segments' array");
        }
        return new Topology(parseSegments(s, "topology"));
    }

    /** Reads a topology file. */
    public static Topology load(Path file) {
        try {
            return parse(new ObjectMapper().readTree(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read topology file " + file, e);
        }
    }

    private static List<Segment> parseSegments(JsonNode array, String where) {
        List<Segment> out = new ArrayList<>();
        for (JsonNode seg : array) {
            if (!seg.isObject()
                    || !seg.path("name").isTextual()
                    || seg.get("name").asText().isEmpty()) {
                throw new IllegalArgumentException(where + ": every segment needs a non-empty string 'name'");
            }
            String name = seg.get("name").asText();
            String w = "segment '" + name + "'";
            for (var it = seg.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!f.equals("name") && !f.equals("obis") && !f.equals("segments")) {
                    throw new IllegalArgumentException(w + ": unknown field '" + f + "'");
                }
            }
            List<Long> obis = new ArrayList<>();
            JsonNode o = seg.get("obis");
            if (o != null) {
                if (!o.isArray()) {
                    throw new IllegalArgumentException(w + ": 'obis' must be an array of dpids");
                }
                for (JsonNode d : o) {
                    if (!d.isIntegralNumber() || d.asLong() < 0) {
                        throw new IllegalArgumentException(w + ": dpid " + d + " is not a non-negative integer");
                    }
                    obis.add(d.asLong());
                }
            }
            JsonNode sub = seg.get("segments");
            if (sub != null && !sub.isArray()) {
                throw new IllegalArgumentException(w + ": 'segments' must be an array");
            }
            out.add(new Segment(name, obis, sub == null ? List.of() : parseSegments(sub, w)));
        }
        return out;
    }

    private static void checkTree(List<Segment> segs, Set<String> names, Set<Long> dpids) {
        for (Segment s : segs) {
            if (!names.add(s.name())) {
                throw new IllegalArgumentException("segment name '" + s.name() + "' is used twice");
            }
            for (long d : s.obis()) {
                if (!dpids.add(d)) {
                    throw new IllegalArgumentException("OBI " + d + " is listed in more than one segment");
                }
            }
            checkTree(s.segments(), names, dpids);
        }
    }

    public ObjectNode toJson() {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.set("segments", toJson(segments));
        return root;
    }

    private static ArrayNode toJson(List<Segment> segs) {
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        for (Segment s : segs) {
            ObjectNode o = a.addObject().put("name", s.name());
            s.obis().forEach(o.putArray("obis")::add);
            if (!s.segments().isEmpty()) {
                o.set("segments", toJson(s.segments()));
            }
        }
        return a;
    }

    /** The named segment anywhere in the tree. */
    public Optional<Segment> find(String segment) {
        return Optional.ofNullable(index().get(segment));
    }

    /** The OBIs of a segment and all its sub-segments; empty for an unknown segment. */
    public Set<Long> obisOf(String segment) {
        Set<Long> out = new LinkedHashSet<>();
        find(segment).ifPresent(s -> collect(s, out));
        return out;
    }

    /** Every OBI of the topology. */
    public Set<Long> allObis() {
        Set<Long> out = new LinkedHashSet<>();
        segments.forEach(s -> collect(s, out));
        return out;
    }

    /** Depth of a segment: 1 for a top-level segment; 0 for an unknown one. */
    public int depthOf(String segment) {
        List<String> path = new ArrayList<>();
        return pathTo(segments, segment, path) ? path.size() : 0;
    }

    /** Names of the segments from the root down to the one that lists OBI {@code dpid}; empty if none does. */
    public List<String> segmentPathOf(long dpid) {
        List<String> path = new ArrayList<>();
        return obiPath(segments, dpid, path) ? path : List.of();
    }

    private static void collect(Segment s, Set<Long> out) {
        out.addAll(s.obis());
        s.segments().forEach(sub -> collect(sub, out));
    }

    private Map<String, Segment> index() {
        Map<String, Segment> m = new HashMap<>();
        indexInto(segments, m);
        return m;
    }

    private static void indexInto(List<Segment> segs, Map<String, Segment> m) {
        for (Segment s : segs) {
            m.put(s.name(), s);
            indexInto(s.segments(), m);
        }
    }

    private static boolean pathTo(List<Segment> segs, String name, List<String> path) {
        for (Segment s : segs) {
            path.add(s.name());
            if (s.name().equals(name) || pathTo(s.segments(), name, path)) {
                return true;
            }
            path.remove(path.size() - 1);
        }
        return false;
    }

    private static boolean obiPath(List<Segment> segs, long dpid, List<String> path) {
        for (Segment s : segs) {
            path.add(s.name());
            if (s.obis().contains(dpid) || obiPath(s.segments(), dpid, path)) {
                return true;
            }
            path.remove(path.size() - 1);
        }
        return false;
    }
}
