package org.openbox.controller.aggregate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.MergeOptions;
import org.openbox.merge.Origin;
import org.openbox.merge.core.CatalogueBlockInfo;
import org.openbox.merge.interpret.Interpreter;
import org.openbox.merge.interpret.Outcome;
import org.openbox.merge.interpret.SideEffect;
import org.openbox.protocol.graph.Graph;

/**
 * Applications with disjoint traffic classes on one OBI are composed as distinct branches:
 * the reference interpreter, run on the composed graph, shows each class reaching only its
 * application and traffic of no class dropped. Overlapping classes, or applications without
 * a class, are chained as before.
 */
class DistinctCompositionTest {
    private static final Catalogue CATALOGUE = Catalogue.load();
    private static final ObjectMapper JSON = new ObjectMapper();
    private final MergingComposer composer = new MergingComposer(() -> CATALOGUE, MergeOptions.defaults());

    private static ObjectNode match(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** FromDevice eth0 -> Alert naming the application -> ToDevice eth1. */
    private static Graph app(String name) {
        return Graph.fromJson(match("{\"blocks\":["
                + "{\"type\":\"FromDevice\",\"name\":\"in\",\"config\":{\"devname\":\"eth0\"}},"
                + "{\"type\":\"Alert\",\"name\":\"seen\",\"config\":{\"alerts\":[{\"message\":\"" + name
                + "\",\"severity\":1}]}},"
                + "{\"type\":\"ToDevice\",\"name\":\"out\",\"config\":{\"devname\":\"eth1\"}}],"
                + "\"connectors\":[{\"src\":\"in\",\"src_port\":0,\"dst\":\"seen\",\"dst_port\":0},"
                + "{\"src\":\"seen\",\"src_port\":0,\"dst\":\"out\",\"dst_port\":0}]}"));
    }

    private static final ObjectNode WEB = match("{\"eth_type\":\"0x0800\",\"ip_proto\":6,\"tcp_dst\":80}");
    private static final ObjectNode DNS = match("{\"eth_type\":\"0x0800\",\"ip_proto\":17,\"udp_dst\":53}");
    private static final ObjectNode TCP = match("{\"eth_type\":\"0x0800\",\"ip_proto\":6}");

    /** An IPv4 packet of the protocol to the port (ICMP when the protocol is 1). */
    private static byte[] packet(int proto, int dport) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[] {0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0});
        int l4 = proto == 6 ? 20 : 8;
        b.writeBytes(
                new byte[] {0x45, 0, 0, (byte) (20 + l4), 0, 1, 0, 0, 64, (byte) proto, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2
                });
        byte[] l4h = new byte[l4];
        if (proto != 1) {
            l4h[0] = 0x30;
            l4h[2] = (byte) (dport >> 8);
            l4h[3] = (byte) dport;
            if (proto == 6) l4h[12] = 0x50;
        } else {
            l4h[0] = 8;
        }
        b.writeBytes(l4h);
        return b.toByteArray();
    }

    /** Which applications raised alerts for the packet, and whether it left the OBI. */
    private static Outcome run(Composed c, byte[] packet) {
        Interpreter i = new Interpreter(
                c.graph(), new CatalogueBlockInfo(CATALOGUE), name -> c.origins().originsOf(name).stream()
                        .map(r -> new Origin(r.app(), r.block()))
                        .toList());
        return i.run(i.inputs().get(0), packet);
    }

    private static List<String> apps(Outcome o) {
        return o.effects().stream()
                .map(SideEffect::origins)
                .flatMap(List::stream)
                .map(Origin::app)
                .toList();
    }

    @Test
    void disjointClassesGetDistinctBranches() {
        Composed c = composer.compose(
                List.of(new AppPart("web", 10, app("web"), WEB), new AppPart("dns", 5, app("dns"), DNS)));
        assertThat(c.composition()).isEqualTo("distinct [web | dns]");
        assertThat(c.report()).startsWith("composition: distinct [web | dns]");
        assertThat(c.graph().blocks().stream().filter(b -> b.type().equals("FromDevice")))
                .hasSize(1);
        Outcome web = run(c, packet(6, 80));
        assertThat(apps(web)).containsExactly("web");
        assertThat(web.dropped()).isFalse();
        Outcome dns = run(c, packet(17, 53));
        assertThat(apps(dns)).containsExactly("dns");
        assertThat(dns.dropped()).isFalse();
        // traffic of no class reaches no application
        Outcome other = run(c, packet(1, 0));
        assertThat(other.effects()).isEmpty();
        assertThat(other.dropped()).isTrue();
        assertThat(apps(run(c, packet(6, 443)))).isEmpty();
    }

    @Test
    void overlappingClassesAreChained() {
        Composed c = composer.compose(
                List.of(new AppPart("web", 10, app("web"), WEB), new AppPart("ids", 5, app("ids"), TCP)));
        assertThat(c.composition()).isEqualTo("chain");
        assertThat(apps(run(c, packet(6, 80)))).containsExactly("web", "ids");
        // chained as before: every application sees every packet
        assertThat(apps(run(c, packet(17, 53)))).containsExactly("web", "ids");
    }

    @Test
    void applicationsWithoutClassChainAroundTheDistinctStage() {
        Composed c = composer.compose(List.of(
                new AppPart("fw", 20, app("fw")),
                new AppPart("web", 10, app("web"), WEB),
                new AppPart("dns", 5, app("dns"), DNS),
                new AppPart("log", 1, app("log"))));
        assertThat(c.composition()).isEqualTo("fw then distinct [web | dns] then log");
        assertThat(apps(run(c, packet(6, 80)))).containsExactly("fw", "web", "log");
        assertThat(apps(run(c, packet(17, 53)))).containsExactly("fw", "dns", "log");
        assertThat(apps(run(c, packet(1, 0)))).containsExactly("fw");
    }

    @Test
    void planGroupsOnlyPairwiseDisjointClasses() {
        CompositionPlan p = CompositionPlan.of(List.of(
                new AppPart("web", 3, app("web"), WEB),
                new AppPart("dns", 2, app("dns"), DNS),
                new AppPart("ids", 1, app("ids"), TCP)));
        // ids overlaps web: it starts a new stage, chained after the distinct one
        assertThat(p.stages())
                .extracting(s -> s.stream().map(AppPart::app).toList())
                .containsExactly(List.of("web", "dns"), List.of("ids"));
    }

    @Test
    void badTrafficClassFailsAtStartup() {
        assertThatThrownBy(() -> TrafficClasses.parse(Map.of("web", "{\"no_such_field\":1}")))
                .hasMessageContaining("openbox.traffic-class.web");
        assertThat(TrafficClasses.parse(Map.of("web", "{\"tcp_dst\":80,\"ip_proto\":6,\"eth_type\":\"0x800\"}"))
                        .of("web"))
                .isPresent();
    }
}
