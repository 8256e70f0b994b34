package org.openbox.merge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openbox.merge.interpret.Interpreter;
import org.openbox.merge.interpret.Outcome;
import org.openbox.merge.interpret.PacketView;
import org.openbox.protocol.match.MatchField;

class InterpreterTest {
    /** Ethernet / IPv4 (TTL ttl) / TCP dport / payload, with a valid IPv4 checksum. */
    static byte[] tcp(int ttl, int dport, String payload) {
        byte[] p = payload.getBytes(StandardCharsets.ISO_8859_1);
        byte[] f = new byte[14 + 20 + 20 + p.length];
        f[12] = 8;
        int l3 = 14;
        f[l3] = 0x45;
        int total = 40 + p.length;
        f[l3 + 2] = (byte) (total >> 8);
        f[l3 + 3] = (byte) total;
        f[l3 + 8] = (byte) ttl;
        f[l3 + 9] = 6;
        f[l3 + 12] = 10;
        f[l3 + 15] = 1;
        f[l3 + 16] = 10;
        f[l3 + 19] = 2;
        int ck = checksum(f, l3);
        f[l3 + 10] = (byte) (ck >> 8);
        f[l3 + 11] = (byte) ck;
        f[34 + 2] = (byte) (dport >> 8);
        f[34 + 3] = (byte) dport;
        f[34 + 12] = 0x50;
        System.arraycopy(p, 0, f, 54, p.length);
        return f;
    }

    static int checksum(byte[] f, int l3) {
        long sum = 0;
        for (int i = 0; i < 20; i += 2) if (i != 10) sum += ((f[l3 + i] & 0xff) << 8) | (f[l3 + i + 1] & 0xff);
        while ((sum >> 16) != 0) sum = (sum & 0xffff) + (sum >> 16);
        return (int) (~sum & 0xffff);
    }

    private static Interpreter chain(String middle, String middleConfig) {
        return Interpreter.forApp(
                "t",
                G.of("{'blocks':[" + G.block("FromDevice", "in", "{'devname':'eth0'}") + ","
                        + G.block(middle, "m", middleConfig) + "," + G.block("ToDevice", "out", "{'devname':'eth1'}")
                        + ","
                        + G.block("Discard", "d", "{}") + "],'connectors':[" + G.conn("in", 0, "m") + ","
                        + G.conn("m", 0, "out")
                        + "," + G.conn("m", 1, "d") + "]}"),
                TestSupport.INFO);
    }

    @Test
    void decIpTtlDecrementsAndFixesTheChecksumOrExpires() {
        Interpreter g = chain("DecIpTtl", "{}");
        Outcome o = g.run("in", tcp(64, 80, "x"));
        assertEquals("out", o.exit());
        assertEquals(63, o.packet()[22] & 0xff);
        assertEquals(checksum(o.packet(), 14), ((o.packet()[24] & 0xff) << 8) | (o.packet()[25] & 0xff));
        Outcome expired = g.run("in", tcp(1, 80, "x"));
        assertTrue(expired.dropped());
        assertArrayEquals(tcp(1, 80, "x"), expired.packet());
    }

    @Test
    void vlanPushThenParseSeesTheTagAndTheInnerType() {
        Interpreter g = chain("VlanEncapsulate", "{'vlan_vid':5,'vlan_pcp':3}");
        byte[] out = g.run("in", tcp(64, 80, "")).packet();
        PacketView v = new PacketView(out);
        assertEquals(5, v.field(MatchField.VLAN_VID).intValue());
        assertEquals(3, v.field(MatchField.VLAN_PCP).intValue());
        assertEquals(0x800, v.field(MatchField.ETH_TYPE).intValue());
        assertEquals(80, v.field(MatchField.TCP_DST).intValue());
        Interpreter pop = chain("VlanDecapsulate", "{}");
        assertArrayEquals(tcp(64, 80, ""), pop.run("in", out).packet());
    }

    @Test
    void rewriterWritesOnlyFieldsThePacketHas() {
        Interpreter g = chain("NetworkHeaderFieldsRewriter", "{'tcp_dst':8080,'udp_dst':53,'ipv4_dst':'192.168.1.1'}");
        PacketView v = new PacketView(g.run("in", tcp(64, 80, "")).packet());
        assertEquals(8080, v.field(MatchField.TCP_DST).intValue());
        assertEquals(0xc0a80101L, v.field(MatchField.IPV4_DST).longValue());
        assertNull(v.field(MatchField.UDP_DST));
    }

    @Test
    void payloadOnlyRegexIgnoresHeadersAndClassifierNoMatchDrops() {
        // 'P' (0x50) is the TCP data-offset byte: a whole-frame regex sees it, a payload regex does not
        Interpreter whole = chain("RegexClassifier", "{'pattern':['P'],'payload_only':false}");
        Interpreter payload = chain("RegexClassifier", "{'pattern':['P'],'payload_only':true}");
        assertEquals("out", whole.run("in", tcp(64, 80, "abc")).exit());
        assertTrue(payload.run("in", tcp(64, 80, "abc")).dropped());
        assertEquals("out", payload.run("in", tcp(64, 80, "xPx")).exit());
    }

    @Test
    void staticsRecordTheirOriginInOrder() {
        Interpreter g = Interpreter.forApp(
                "ids",
                G.of("{'blocks':[" + G.block("FromDevice", "in", "{'devname':'eth0'}") + ","
                        + G.block("Alert", "a1", "{'alerts':[{'message':'one'}]}") + ","
                        + G.block("Log", "l1", "{'message':'two'}") + ","
                        + G.block("ToDevice", "out", "{'devname':'eth1'}") + "],'connectors':[" + G.conn("in", 0, "a1")
                        + ","
                        + G.conn("a1", 0, "l1") + "," + G.conn("l1", 0, "out") + "]}"),
                TestSupport.INFO);
        Outcome o = g.run("in", tcp(64, 80, ""));
        assertEquals(
                List.of("Alert", "Log"), o.effects().stream().map(e -> e.kind()).toList());
        assertEquals(List.of(new Origin("ids", "a1")), o.effects().get(0).origins());
    }
}
