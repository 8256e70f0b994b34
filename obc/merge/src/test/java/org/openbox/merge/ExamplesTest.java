package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.merge.cli.MergeCli;
import org.openbox.merge.gen.ExamplePackets;
import org.openbox.merge.interpret.Interpreter;
import org.openbox.merge.interpret.Outcome;
import org.openbox.merge.interpret.Reference;
import org.openbox.merge.interpret.SideEffect;
import org.openbox.protocol.graph.Graph;

/**
 * The worked examples under examples/: merged through the CLI entry point, the merged
 * graph file gives the same outcomes as running the applications one after the other.
 */
class ExamplesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path EXAMPLES = Path.of(System.getProperty("openbox.root", "../.."), "obc/merge/examples");

    @TempDir
    Path tmp;

    static List<Path> files(String dir) throws IOException {
        try (Stream<Path> s = Files.list(EXAMPLES.resolve(dir))) {
            return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
    }

    static List<AppGraph> apps(List<Path> files) throws IOException {
        List<AppGraph> out = new ArrayList<>();
        for (Path f : files) {
            String n = f.getFileName().toString().replace(".json", "");
            out.add(new AppGraph(n, 0, Graph.fromJson(JSON.readTree(f.toFile()))));
        }
        return out;
    }

    /** Runs the CLI, returns the merged graph it wrote and checks the report. */
    private Graph mergeWithCli(List<Path> files, String mode) throws IOException {
        Path out = tmp.resolve("merged.json");
        List<String> args = new ArrayList<>(List.of(mode));
        files.forEach(f -> args.add(f.toString()));
        args.addAll(List.of("-o", out.toString()));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = MergeCli.run(
                args.toArray(String[]::new),
                new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String report = err.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, report);
        assertTrue(report.contains("before:") && report.contains("after:"), report);
        return Graph.fromJson(JSON.readTree(out.toFile()));
    }

    /**
     * Without provenance (the CLI writes only the graph), outcomes are compared by the exit
     * terminal's type and config, the bytes, and the alerts / logs by kind and config.
     */
    private static void assertSameBehaviour(List<AppGraph> apps, Composition c, Graph merged) {
        Reference ref = new Reference(apps, c, TestSupport.INFO);
        Interpreter m = new Interpreter(merged, TestSupport.INFO, name -> List.of());
        Interpreter first = Interpreter.forApp(apps.get(0).app(), apps.get(0).graph(), TestSupport.INFO);
        String in = m.inputs().get(0);
        List<byte[]> packets = ExamplePackets.packets(7, 3000);
        int forwarded = 0, alerts = 0;
        for (byte[] p : packets) {
            Outcome want =
                    ref.run(List.of(new Origin(apps.get(0).app(), first.inputs().get(0))), p);
            Outcome got = m.run(in, p);
            assertEquals(want.dropped(), got.dropped(), () -> "drop differs: " + want + " vs " + got);
            if (!want.dropped()) {
                String[] w = want.exit().split("\\.", 2);
                var wantBlock =
                        apps.stream()
                                .filter(a -> a.app().equals(w[0]))
                                .findFirst()
                                .orElseThrow()
                                .graph()
                                .blocks()
                                .stream()
                                .filter(b -> b.name().equals(w[1]))
                                .findFirst()
                                .orElseThrow();
                var gotBlock = m.block(got.exit());
                assertEquals(wantBlock.type(), gotBlock.type());
                assertEquals(wantBlock.config(), gotBlock.config());
                forwarded++;
            }
            assertTrue(
                    java.util.Arrays.equals(want.packet(), got.packet()), () -> "bytes differ: " + want + " vs " + got);
            assertEquals(kinds(want.effects()), kinds(got.effects()));
            alerts += want.effects().size();
        }
        // the packets exercise both forwarding and side effects
        assertTrue(forwarded > 100 && forwarded < packets.size(), "forwarded " + forwarded);
        assertTrue(alerts > 50, "alerts " + alerts);
    }

    private static List<String> kinds(List<SideEffect> e) {
        return e.stream().map(s -> s.kind() + s.config()).toList();
    }

    @Test
    void fourNfChainThroughTheCli() throws IOException {
        List<Path> files = files("four-nf-chain");
        assertEquals(4, files.size());
        List<AppGraph> apps = apps(files);
        Graph merged = mergeWithCli(files, "--chain");
        assertSameBehaviour(apps, Composition.CHAIN, merged);
        // the merged graph is smaller than naive concatenation and has one combined classifier up front
        int before = apps.stream().mapToInt(a -> a.graph().blocks().size()).sum();
        assertTrue(merged.blocks().size() < before - 4, merged.blocks().size() + " blocks");
        // and the library result with provenance agrees packet by packet
        MergeResult r = new GraphMerger(TestSupport.CATALOGUE).merge(apps, Composition.CHAIN, MergeOptions.defaults());
        assertEquals(r.merged().toJson(), merged.toJson());
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, ExamplePackets.packets(11, 2000));
    }

    @Test
    void firewallAndIpsThroughTheCli() throws IOException {
        List<Path> files = files("firewall-ips");
        List<AppGraph> apps = apps(files);
        Graph merged = mergeWithCli(files, "--chain");
        assertSameBehaviour(apps, Composition.CHAIN, merged);
        assertTrue(
                merged.blocks().stream().anyMatch(b -> b.type().equals("HeaderPayloadClassifier")),
                "header and payload rules are combined into one HeaderPayloadClassifier");
        MergeResult r = new GraphMerger(TestSupport.CATALOGUE).merge(apps, Composition.CHAIN, MergeOptions.defaults());
        TestSupport.assertEquivalent(apps, Composition.CHAIN, r, ExamplePackets.packets(12, 2000));
        // the SQL-injection alert stays attributed to the IPS
        String sqli = r.provenance().mergedBlocksOf("ips", "sqli").get(0);
        assertEquals(List.of(new Origin("ips", "sqli")), r.provenance().originsOf(sqli));
    }

    @Test
    void firewallAndIpsAsDistinctApplications() throws IOException {
        List<AppGraph> apps = apps(files("firewall-ips"));
        MergeResult r =
                new GraphMerger(TestSupport.CATALOGUE).merge(apps, Composition.DISTINCT, MergeOptions.defaults());
        // both listen on eth0: one input terminal and a front classifier split the traffic
        assertEquals(
                1,
                r.merged().blocks().stream()
                        .filter(b -> b.type().equals("FromDevice"))
                        .count());
        TestSupport.assertEquivalent(apps, Composition.DISTINCT, r, ExamplePackets.packets(13, 2000));
    }
}
