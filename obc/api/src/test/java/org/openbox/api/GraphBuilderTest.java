package org.openbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.api.blocks.Alert;
import org.openbox.api.blocks.CustomBlock;
import org.openbox.api.blocks.DecIpTtl;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.FromDump;
import org.openbox.api.blocks.HeaderClassifier;
import org.openbox.api.blocks.HeaderPayloadClassifier;
import org.openbox.api.blocks.Ipv4AddressTranslator;
import org.openbox.api.blocks.ProtocolAnalyzer;
import org.openbox.api.blocks.RegexMatcher;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.blocks.ToDump;
import org.openbox.api.blocks.VlanEncapsulate;
import org.openbox.api.match.Match;
import org.openbox.api.match.PayloadPattern;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;
import org.openbox.protocol.match.MatchField;

class GraphBuilderTest {

    static InvalidGraphException fails(ErrorSubtype subtype, Runnable r, String... mentions) {
        InvalidGraphException e = assertThrows(InvalidGraphException.class, r::run);
        assertEquals(subtype, e.subtype(), e.getMessage());
        for (String m : mentions) {
            assertTrue(e.getMessage().contains(m), "message should mention '" + m + "': " + e.getMessage());
        }
        return e;
    }

    @Test
    void buildsAFirewallGraph() {
        FromDevice in = new FromDevice("in", "eth0");
        HeaderClassifier fw = new HeaderClassifier("fw")
                .rule(Match.of().ethType(0x0800).ipv4Src("10.0.0.0/8").tcpDst(80))
                .rule(Match.of());
        Alert alert = new Alert("a").alert("web from inside", 3);
        ProcessingGraph g = new GraphBuilder()
                .connect(in, fw)
                .chain(fw, alert, new ToDevice("out", "eth1"))
                .connect(fw, 1, new Discard("drop"))
                .build();
        assertEquals(
                List.of("in", "fw", "a", "out", "drop"),
                g.blocks().stream().map(Block::name).toList());
        assertEquals(new Connector("fw", 1, "drop", 0), g.connectors().get(3));
        assertEquals("HeaderClassifier", g.block("fw").orElseThrow().type());
        assertEquals(
                "{\"ETH_TYPE\":2048,\"IPV4_SRC\":\"10.0.0.0/8\",\"IP_PROTO\":6,\"TCP_DST\":80}",
                g.block("fw").orElseThrow().config().get("match").get(0).toString());
        // the graph-file form reads back as the same graph
        assertEquals(g.toGraph(), Graph.fromJson(g.toJson()));
    }

    @Test
    void matchFillsInPrerequisites() {
        assertEquals(
                List.of(MatchField.ETH_TYPE, MatchField.IP_PROTO, MatchField.UDP_DST),
                Match.of().udpDst(53).fields());
        assertEquals(
                "{\"ETH_TYPE\":34525,\"IP_PROTO\":58,\"ICMPV6_TYPE\":128}",
                Match.of().field(MatchField.ICMPV6_TYPE, 128).toJson().toString());
        assertEquals(
                "{\"ETH_TYPE\":34525,\"IP_PROTO\":6,\"TCP_SRC\":\"[1024:65535]\"}",
                Match.of()
                        .ethType(0x86dd)
                        .range(MatchField.TCP_SRC, 1024, 65535)
                        .toJson()
                        .toString());
        Match.of().anyOf(MatchField.TCP_DST, 80, 443).parse();
        assertThrows(IllegalArgumentException.class, () -> Match.of().tcpDst(1).tcpDst(2));
    }

    @Test
    void badHeaderMatchNamesBlockAndRule() {
        HeaderClassifier fw = new HeaderClassifier("fw").rule(Match.of().tcpDst(22));
        fails(ErrorSubtype.BAD_HEADER_MATCH, () -> fw.rule(Match.of().tcpDst(70000)), "'fw'", "rule 1", "TCP_DST");
        fails(
                ErrorSubtype.BAD_HEADER_MATCH,
                () -> fw.rule(Match.of().ethType(0x86dd).ipv4Dst("1.2.3.4")),
                "rule 1");
        fails(ErrorSubtype.BAD_HEADER_MATCH, () -> fw.rule(Match.of().ipv4Src("10.0.0.300")), "'fw'", "rule 1");
        assertEquals(1, fw.rules());
    }

    @Test
    void badPayloadPatternNamesBlockRuleAndPattern() {
        HeaderPayloadClassifier ips = new HeaderPayloadClassifier("ips").rule(PayloadPattern.regex("a+b"));
        fails(
                ErrorSubtype.BAD_PAYLOAD_MATCH,
                () -> ips.rule(Match.of().tcpDst(80), PayloadPattern.regex("ok"), PayloadPattern.regex("(unclosed")),
                "'ips'",
                "rule 1 payload pattern 1",
                "(unclosed");
        fails(
                ErrorSubtype.BAD_PAYLOAD_MATCH,
                () -> ips.rule(PayloadPattern.literal("x").between(9, 2)),
                "from > to");
        RegexMatcher rm = new RegexMatcher("rm").pattern("fine", "[bad");
        fails(
                ErrorSubtype.BAD_BLOCK,
                () -> new GraphBuilder().chain(new FromDump("in", "x.pcap"), rm).build(),
                "'rm'",
                "pattern 1",
                "[bad");
    }

    @Test
    void blockChecksRunAtBuild() {
        FromDump in = new FromDump("in", "x.pcap");
        fails(
                ErrorSubtype.BAD_BLOCK,
                () -> new GraphBuilder()
                        .chain(in, new VlanEncapsulate("v", 5000))
                        .build(),
                "'v'",
                "vlan_vid");
        fails(
                ErrorSubtype.BAD_BLOCK,
                () -> new GraphBuilder()
                        .chain(in, new HeaderClassifier("empty"))
                        .build(),
                "'empty'",
                "no rules");
        fails(
                ErrorSubtype.BAD_BLOCK,
                () -> new GraphBuilder()
                        .chain(in, new ProtocolAnalyzer("pa").protocols("http", "gopher"))
                        .build(),
                "'pa'",
                "gopher");
        fails(
                ErrorSubtype.BAD_BLOCK,
                () -> new GraphBuilder()
                        .chain(in, new Ipv4AddressTranslator("nat").inputSpec("pass 0", "forward 1"))
                        .build(),
                "'nat'",
                "input_spec 1");
        fails(
                ErrorSubtype.BAD_BLOCK,
                () -> new GraphBuilder()
                        .chain(in, new CustomBlock("DecIpTtl", "t").arg("active", IntNode.valueOf(1)))
                        .build(),
                "'t'",
                "active");
        fails(
                ErrorSubtype.UNSUPPORTED_BLOCK,
                () -> new GraphBuilder()
                        .chain(in, new CustomBlock("Teleport", "t"))
                        .build(),
                "Teleport");
    }

    @Test
    void connectorErrors() {
        FromDump in = new FromDump("in", "x.pcap");
        DecIpTtl ttl = new DecIpTtl("ttl");
        fails(
                ErrorSubtype.BAD_CONNECTOR,
                () -> new GraphBuilder()
                        .connect(in, ttl)
                        .connect(ttl, 2, new Discard("d"))
                        .build(),
                "ttl[2]",
                "2 outputs");
        fails(
                ErrorSubtype.BAD_CONNECTOR,
                () -> new GraphBuilder().connect(in, 0, ttl, 1).build(),
                "ttl[1]",
                "1 input");
        fails(
                ErrorSubtype.BAD_CONNECTOR,
                () -> new GraphBuilder()
                        .connect(in, ttl)
                        .connect(ttl, new Discard("d"))
                        .connect(ttl, new ToDump("o", "o.pcap"))
                        .build(),
                "already connected to d");
        fails(
                ErrorSubtype.BAD_CONNECTOR,
                () -> new GraphBuilder()
                        .connect(in, ttl)
                        .connect("ttl", 0, "ghost", 0)
                        .build(),
                "ghost");
        fails(
                ErrorSubtype.BAD_BLOCK,
                () -> new GraphBuilder().connect(in, new Discard("d")).add(new Discard("d")),
                "two blocks",
                "'d'");
    }

    @Test
    void shapeErrors() {
        FromDump in = new FromDump("in", "x.pcap");
        fails(ErrorSubtype.BAD_GRAPH, () -> new GraphBuilder().build(), "no blocks");
        fails(
                ErrorSubtype.BAD_GRAPH,
                () -> new GraphBuilder()
                        .chain(in, new Discard("d"))
                        .add(new DecIpTtl("orphan"))
                        .build(),
                "'orphan'",
                "upstream");
        fails(
                ErrorSubtype.BAD_GRAPH,
                () -> new GraphBuilder()
                        .chain(new DecIpTtl("x"), new Discard("d"))
                        .build(),
                "'x'");
        DecIpTtl a = new DecIpTtl("a");
        DecIpTtl b = new DecIpTtl("b");
        fails(
                ErrorSubtype.BAD_GRAPH,
                () -> new GraphBuilder()
                        .connect(in, a)
                        .connect(a, b)
                        .connect(b, 0, a, 0)
                        .build(),
                "cycle");
        // without a source, the cycle is fed by nothing upstream of it, but there is no input terminal at all
        fails(
                ErrorSubtype.BAD_GRAPH,
                () -> new GraphBuilder().connect(a, b).connect(b, a).build(),
                "input terminal");
    }

    @Test
    void graphIsASnapshot() {
        HeaderClassifier fw = new HeaderClassifier("fw").rule(Match.of());
        ProcessingGraph g =
                new GraphBuilder().chain(new FromDump("in", "x.pcap"), fw).build();
        fw.rule(Match.of().tcpDst(1));
        assertEquals(1, g.block("fw").orElseThrow().config().get("match").size());
    }

    @Test
    void customModuleBlocksUseAnExtendedCatalogue() throws Exception {
        Catalogue extended = Catalogue.load()
                .with(Catalogue.parse(new ObjectMapper()
                        .readTree(
                                "{\"name\":\"Sampler\",\"class\":\"static\",\"spec\":\"extension\",\"required\":false,\"description\":\"d\","
                                        + "\"config\":[{\"name\":\"one_in\",\"type\":\"integer\",\"required\":true}],"
                                        + "\"read_handles\":[],\"write_handles\":[],\"inputs\":1,\"outputs\":1}")));
        ProcessingGraph g = new GraphBuilder(extended)
                .chain(
                        new FromDump("in", "x.pcap"),
                        new CustomBlock("Sampler", "s").arg("one_in", IntNode.valueOf(10)),
                        new Discard("d"))
                .build();
        assertEquals(3, g.blocks().size());
        // checked against the extended types: not against the packaged ones, which lack Sampler
        assertTrue(g.checkedAgainst(extended));
        assertTrue(
                g.checkedAgainst(Catalogue.load().with(extended.find("Sampler").orElseThrow())));
        assertFalse(g.checkedAgainst(Catalogue.load()));
        ProcessingGraph plain = new GraphBuilder()
                .chain(new FromDump("in", "x.pcap"), new Discard("d"))
                .build();
        assertTrue(plain.checkedAgainst(Catalogue.load()), "an equal catalogue loaded again has the same types");
        assertFalse(plain.checkedAgainst(extended));
        assertFalse(plain.checkedAgainst(null));
        fails(
                ErrorSubtype.BAD_BLOCK,
                () -> new GraphBuilder(extended)
                        .chain(new FromDump("in", "x.pcap"), new CustomBlock("Sampler", "s"))
                        .build(),
                "one_in");
    }

    @Test
    void graphFilesCanBeLoadedAndChecked() throws Exception {
        Graph file = Graph.fromJson(new ObjectMapper()
                .readTree("{\"blocks\":["
                        + "{\"type\":\"FromDump\",\"name\":\"in\",\"config\":{\"filename\":\"a.pcap\"}},"
                        + "{\"type\":\"Ipv4AddressTranslator\",\"name\":\"nat\",\"config\":{\"input_spec\":[\"keep 0 2\",\"discard\"]}},"
                        + "{\"type\":\"Discard\",\"name\":\"d\",\"config\":{}}],"
                        + "\"connectors\":[{\"src\":\"in\",\"src_port\":0,\"dst\":\"nat\",\"dst_port\":1},"
                        + "{\"src\":\"nat\",\"src_port\":2,\"dst\":\"d\",\"dst_port\":0}]}"));
        assertEquals(file, new GraphBuilder().add(file).build().toGraph());
    }
}
