package org.openbox.merge.gen;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random Ethernet frames over the same small universe as {@link GraphGen}: IPv4 TCP / UDP /
 * ICMP (sometimes VLAN-tagged, sometimes TTL 1), ARP and IPv6 frames, payloads over
 * {a, b, c, x}.
 */
public final class PacketGen {
    private PacketGen() {}

    public static List<byte[]> packets(long seed, int n) {
        Random r = new Random(seed);
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(packet(r));
        return out;
    }

    static byte[] packet(Random r) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[] {0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, (byte) r.nextInt(4)});
        if (r.nextInt(5) == 0) {
            u16(b, 0x8100);
            u16(b, (r.nextInt(8) << 13) | (1 + r.nextInt(3)));
        }
        int kind = r.nextInt(10);
        String payload = payload(r);
        if (kind < 8) {
            u16(b, 0x0800);
            int proto = kind < 4 ? 6 : kind < 7 ? 17 : 1;
            int l4len = proto == 6 ? 20 : 8;
            int total = 20 + l4len + payload.length();
            b.write(0x45);
            b.write(r.nextInt(3) == 0 ? 40 : 0); // DSCP 10 sometimes
            u16(b, total);
            u16(b, 1);
            u16(b, r.nextInt(10) == 0 ? 0x0010 : 0); // rarely a later fragment
            b.write(r.nextInt(6) == 0 ? 1 : 64);
            b.write(proto);
            u16(b, 0);
            b.writeBytes(ip(r));
            b.writeBytes(ip(r));
            int[] ports = {80, 443, 8080, 22, 1024 + r.nextInt(60000), 90, 0x150};
            if (proto == 6) {
                u16(b, ports[r.nextInt(ports.length)]);
                u16(b, ports[r.nextInt(ports.length)]);
                b.writeBytes(new byte[8]);
                b.write(0x50);
                b.writeBytes(new byte[7]);
            } else if (proto == 17) {
                u16(b, ports[r.nextInt(ports.length)]);
                u16(b, ports[r.nextInt(ports.length)]);
                u16(b, 8 + payload.length());
                u16(b, 0);
            } else {
                b.writeBytes(new byte[] {8, 0, 0, 0, 0, 0, 0, 0});
            }
        } else if (kind == 8) {
            u16(b, 0x0806);
            b.writeBytes(new byte[] {0, 1, 8, 0, 6, 4, 0, 1});
            b.writeBytes(new byte[6]);
            b.writeBytes(ip(r));
            b.writeBytes(new byte[6]);
            b.writeBytes(ip(r));
        } else {
            u16(b, 0x86dd);
            b.writeBytes(new byte[] {0x60, 0, 0, 0});
            u16(b, 8 + payload.length());
            b.write(17);
            b.write(r.nextBoolean() ? 1 : 64);
            b.writeBytes(new byte[32]);
            u16(b, 80);
            u16(b, 80);
            u16(b, 8 + payload.length());
            u16(b, 0);
        }
        b.writeBytes(payload.getBytes(StandardCharsets.ISO_8859_1));
        return b.toByteArray();
    }

    private static String payload(Random r) {
        StringBuilder s = new StringBuilder();
        for (int i = r.nextInt(7); i > 0; i--) s.append("abcx".charAt(r.nextInt(4)));
        return s.toString();
    }

    private static byte[] ip(Random r) {
        int[][] ips = {{10, 0, 0, 1}, {10, 0, 0, 2}, {10, 0, 1, 1}, {192, 168, 0, 1}, {10, 0, 0, 9}, {10, 1, 0, 1}};
        int[] ip = ips[r.nextInt(ips.length)];
        return new byte[] {(byte) ip[0], (byte) ip[1], (byte) ip[2], (byte) ip[3]};
    }

    private static void u16(ByteArrayOutputStream b, int v) {
        b.write(v >> 8);
        b.write(v);
    }
}
