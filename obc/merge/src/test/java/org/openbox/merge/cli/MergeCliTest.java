package org.openbox.merge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MergeCliTest {
    private static final Path EXAMPLES = Path.of(System.getProperty("openbox.root", "../.."), "obc/merge/examples");

    @TempDir
    Path tmp;

    record Run(int rc, String out, String err) {}

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int rc = MergeCli.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static String fw() {
        return EXAMPLES.resolve("firewall-ips/firewall.json").toString();
    }

    static String ips() {
        return EXAMPLES.resolve("firewall-ips/ips.json").toString();
    }

    @Test
    void helpPrintsUsage() {
        Run r = run("--help");
        assertEquals(0, r.rc());
        assertTrue(r.out().contains("--max-rules"));
    }

    @Test
    void badArgumentsExitTwoWithOneLine() {
        for (String[] args : new String[][] {
            {},
            {"--frobnicate", fw()},
            {"--max-rules", "zero", fw()},
            {"--max-rules", "0", fw()},
            {"--chain", "--distinct", fw()},
            {"/no/such/graph.json"},
            {fw(), "-o"}
        }) {
            Run r = run(args);
            assertEquals(2, r.rc(), String.join(" ", args));
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertTrue(r.err().startsWith("merge: "), r.err());
        }
    }

    @Test
    void badGraphExitsOneNamingTheBlock() throws IOException {
        Path bad = tmp.resolve("bad.json");
        Files.writeString(
                bad,
                "{'blocks':[{'type':'FromDevice','name':'in','config':{'devname':'eth0'}},".replace('\'', '"')
                        + "{\"type\":\"HeaderClassifier\",\"name\":\"acl\",\"config\":{\"match\":[{\"tcp_dst\":80}]}}],"
                        + "\"connectors\":[{\"src\":\"in\",\"src_port\":0,\"dst\":\"acl\",\"dst_port\":0}]}");
        Run r = run(bad.toString());
        assertEquals(1, r.rc());
        assertTrue(r.err().contains("acl"), r.err());
        Path notJson = tmp.resolve("x.json");
        Files.writeString(notJson, "{ nope");
        assertEquals(1, run(notJson.toString()).rc());
    }

    @Test
    void mergesToStdoutAndReportsOnStderr() {
        Run r = run("--chain", fw(), ips());
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.out().contains("\"blocks\""));
        assertTrue(r.err().contains("combined") && r.err().contains("before:"), r.err());
    }

    @Test
    void dotRendersMergedOrSingleGraph() throws IOException {
        Run single = run("--dot", fw());
        assertEquals(0, single.rc(), single.err());
        assertTrue(single.out().startsWith("digraph") && single.out().contains("\"rules\""), single.out());
        Path out = tmp.resolve("m.json");
        Run merged = run("--dot", fw(), ips(), "-o", out.toString());
        assertEquals(0, merged.rc(), merged.err());
        assertTrue(merged.out().startsWith("digraph") && merged.out().contains("HeaderPayloadClassifier"));
        assertTrue(Files.readString(out).contains("\"connectors\""));
    }

    @Test
    void distinctSharesTheInputThroughOneFrontClassifier() {
        Run r = run("--distinct", fw(), ips());
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.err().startsWith("distinct merge of [firewall, ips]"), r.err());
        assertEquals(1, r.out().split("\"FromDevice\"", -1).length - 1, r.out());
    }

    @Test
    void concatJoinsWithoutMerging() throws IOException {
        Path out = tmp.resolve("naive.json");
        Run r = run("--concat", fw(), ips(), "-o", out.toString());
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.err().startsWith("concatenation (no merge) of [firewall, ips]"), r.err());
        assertTrue(r.err().contains("combined 0 classifier pair(s)"), r.err());
        String g = Files.readString(out);
        // both classifiers stay, the firewall's outputs lead into the IPS's first block
        assertTrue(g.contains("\"firewall.rules\"") && g.contains("\"ips.web\""), g);
        assertTrue(g.matches("(?s).*\"src\" : \"firewall.rules\",\\s*\"src_port\" : 1,\\s*\"dst\" : \"ips.web\".*"), g);
        assertEquals(1, g.split("\"FromDevice\"", -1).length - 1, g);
        assertEquals(2, run("--concat", "--distinct", fw(), ips()).rc());
        assertTrue(run("--help").out().contains("--concat"));
    }

    @Test
    void maxRulesIsHonoured() {
        Run r = run("--max-rules", "2", fw(), ips());
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.err().contains("rule bound"), r.err());
    }

    @Test
    void fusedClassifiersAreReportedAndMarkedInDot() throws java.io.IOException {
        var rules = org.openbox.merge.gen.ClassBench.rules("fw-4560.classbench");
        Path a = tmp.resolve("fwa.json"), b = tmp.resolve("fwb.json");
        java.nio.file.Files.writeString(
                a,
                org.openbox.merge.gen.ClassBench.firewall(rules.subList(0, 2280), 7)
                        .toJson()
                        .toString());
        java.nio.file.Files.writeString(
                b,
                org.openbox.merge.gen.ClassBench.firewall(rules.subList(2280, 4560), 5)
                        .toJson()
                        .toString());
        Run r = run("--chain", "--dot", "-o", tmp.resolve("out.json").toString(), a.toString(), b.toString());
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.err().contains("fused 1 classifier group(s)"), r.err());
        assertTrue(r.err().contains("fwa.rules (2280 rules) + fwb.rules"), r.err());
        assertTrue(r.out().contains("\"fwa.rules\" -> \"fwb.rules\" [style=dashed, label=\"fused\""), r.out());
        assertTrue(r.out().contains("fillcolor=lightblue"), r.out());
        // without fusion: no fuse key and nothing reported as fused
        Run off = run("--chain", "--no-fuse", "--max-rules", "10", a.toString(), b.toString());
        assertEquals(0, off.rc(), off.err());
        assertTrue(!off.out().contains("\"fuse\"") && !off.err().contains("fused"), off.err());
    }
}
