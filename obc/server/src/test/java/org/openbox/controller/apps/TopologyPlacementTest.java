package org.openbox.controller.apps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.Location;
import org.openbox.api.Topology;
import org.openbox.controller.OpenboxProperties;
import org.openbox.protocol.MessageCodec;
import org.openbox.protocol.graph.Graph;

/** The topology file and which statement of an application applies to an OBI. */
class TopologyPlacementTest {

    @TempDir
    Path tmp;

    private static OpenboxProperties props(Path topology) {
        return new OpenboxProperties(
                Duration.ofSeconds(10),
                null,
                Duration.ofMillis(100),
                Duration.ofSeconds(5),
                null,
                topology,
                3636,
                100,
                10000,
                false,
                true,
                null);
    }

    private static Graph named(String name) {
        return new Graph(List.of(new org.openbox.protocol.graph.Block("Discard", name, null)), List.of());
    }

    @Test
    void mostSpecificStatementWins() throws Exception {
        Path file = tmp.resolve("topology.json");
        Files.writeString(
                file,
                "{\"segments\": [{\"name\": \"dmz\", \"obis\": [1, 2], "
                        + "\"segments\": [{\"name\": \"web\", \"obis\": [3]}]}]}");
        Topology topo = new TopologyHolder(props(file), new MessageCodec()).topology();
        AppEntry app = new AppEntry(
                "a",
                null,
                "test",
                0,
                List.of(
                        new PlacedGraph(Location.network(), named("everywhere")),
                        new PlacedGraph(Location.segment("dmz"), named("dmz")),
                        new PlacedGraph(Location.segment("web"), named("web")),
                        new PlacedGraph(Location.obi(2), named("two"))),
                AppState.RUNNING,
                null);

        assertThat(app.graphFor(1, topo).orElseThrow().graph()).isEqualTo(named("dmz"));
        assertThat(app.graphFor(2, topo).orElseThrow().graph()).isEqualTo(named("two"));
        assertThat(app.graphFor(3, topo).orElseThrow().graph()).isEqualTo(named("web"));
        assertThat(app.graphFor(9, topo).orElseThrow().graph()).isEqualTo(named("everywhere"));

        AppEntry dmzOnly = new AppEntry(
                "b",
                null,
                "test",
                0,
                List.of(new PlacedGraph(Location.segment("dmz"), named("dmz"))),
                AppState.RUNNING,
                null);
        assertThat(dmzOnly.appliesTo(3, topo)).isTrue(); // sub-segment
        assertThat(dmzOnly.appliesTo(9, topo)).isFalse();
    }

    @Test
    void withoutFileTheNetworkIsFlat() {
        Topology topo = new TopologyHolder(props(null), new MessageCodec()).topology();
        assertThat(topo.segments()).isEmpty();
    }

    @Test
    void badTopologyFileIsReportedWithItsName() throws Exception {
        Path file = tmp.resolve("bad.json");
        Files.writeString(file, "{\"segments\": 3}");
        assertThatThrownBy(() -> new TopologyHolder(props(file), new MessageCodec()))
                .hasMessageContaining("bad.json")
                .hasMessageContaining("segments");
    }
}
