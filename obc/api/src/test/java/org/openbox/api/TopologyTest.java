package org.openbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDump;

class TopologyTest {

    static final String JSON = "{\"segments\":[{\"name\":\"campus\",\"obis\":[1],\"segments\":["
            + "{\"name\":\"dmz\",\"obis\":[2,3],\"segments\":[{\"name\":\"web\",\"obis\":[4]}]},"
            + "{\"name\":\"lab\",\"obis\":[5]}]},{\"name\":\"branch\",\"obis\":[6]}]}";

    static Topology topology() throws Exception {
        return Topology.parse(new ObjectMapper().readTree(JSON));
    }

    @Test
    void obisOfIncludesSubSegments() throws Exception {
        Topology t = topology();
        assertEquals(Set.of(1L, 2L, 3L, 4L, 5L), t.obisOf("campus"));
        assertEquals(Set.of(2L, 3L, 4L), t.obisOf("dmz"));
        assertEquals(Set.of(4L), t.obisOf("web"));
        assertEquals(Set.of(), t.obisOf("nowhere"));
        assertEquals(Set.of(1L, 2L, 3L, 4L, 5L, 6L), t.allObis());
        assertEquals(3, t.depthOf("web"));
        assertEquals(1, t.depthOf("branch"));
        assertEquals(List.of("campus", "dmz", "web"), t.segmentPathOf(4));
        assertEquals(List.of(), t.segmentPathOf(99));
    }

    @Test
    void roundTripsAndLoadsFiles(@TempDir Path dir) throws Exception {
        Topology t = topology();
        assertEquals(t, Topology.parse(t.toJson()));
        Path f = dir.resolve("topology.json");
        Files.writeString(f, JSON);
        assertEquals(t, Topology.load(f));
    }

    @Test
    void rejectsMalformedTopologies() {
        ObjectMapper m = new ObjectMapper();
        for (String bad : new String[] {
            "[]",
            "{}",
            "{\"segments\":[{\"obis\":[1]}]}",
            "{\"segments\":[{\"name\":\"a\",\"obis\":[\"one\"]}]}",
            "{\"segments\":[{\"name\":\"a\",\"obis\":[1]},{\"name\":\"a\"}]}",
            "{\"segments\":[{\"name\":\"a\",\"obis\":[1],\"segments\":[{\"name\":\"b\",\"obis\":[1]}]}]}",
            "{\"segments\":[{\"name\":\"a\",\"obi\":[1]}]}"
        }) {
            assertThrows(IllegalArgumentException.class, () -> Topology.parse(m.readTree(bad)), bad);
        }
    }

    @Test
    void locationsInclude() throws Exception {
        Topology t = topology();
        assertTrue(Location.obi(4).includes(4, t));
        assertFalse(Location.obi(4).includes(5, t));
        assertTrue(Location.segment("campus").includes(4, t));
        assertTrue(Location.segment("dmz").includes(3, t));
        assertFalse(Location.segment("dmz").includes(5, t));
        assertFalse(Location.segment("nowhere").includes(1, t));
        assertTrue(Location.network().includes(42, t));
    }

    @Test
    void theClosestStatementApplies() throws Exception {
        Topology t = topology();
        ProcessingGraph g1 = graph("g1");
        ProcessingGraph g2 = graph("g2");
        ProcessingGraph g3 = graph("g3");
        ProcessingGraph g4 = graph("g4");
        List<Statement> s = List.of(
                new Statement(Location.network(), g1),
                new Statement(Location.segment("campus"), g2),
                new Statement(Location.segment("dmz"), g3),
                new Statement(Location.obi(3), g4));
        assertEquals(g3, Statement.select(s, 4, t).orElseThrow().graph());
        assertEquals(g4, Statement.select(s, 3, t).orElseThrow().graph());
        assertEquals(g2, Statement.select(s, 5, t).orElseThrow().graph());
        assertEquals(g1, Statement.select(s, 6, t).orElseThrow().graph());
        assertTrue(Statement.select(List.of(new Statement(Location.segment("lab"), g1)), 6, t)
                .isEmpty());
    }

    static ProcessingGraph graph(String file) {
        return new GraphBuilder()
                .chain(new FromDump("in", file + ".pcap"), new Discard("d"))
                .build();
    }
}
