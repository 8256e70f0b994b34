package org.openbox.merge.gen;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Packets for the worked examples: IPv4 TCP / UDP between the example networks (blocked
 * 10.66/16, the department 10.1/16, the load-balanced 10.1.0.100), on the ports the
 * examples care about, with HTTP GETs to cached and other sites, attack strings and plain
 * payloads; some ARP frames and TTL-1 packets.
 */
public final class ExamplePackets {
    private static final int[][] SRC = {{10, 66, 3, 4}, {192, 0, 2, 1}, {192, 0, 2, 2}, {10, 1, 9, 9}, {198, 51, 100, 7}
    };
    private static final int[][] DST = {{10, 1, 0, 100}, {10, 1, 2, 3}, {203, 0, 113, 5}, {10, 1, 1, 1}};
    private static final int[] PORTS = {80, 443, 22, 23, 53, 8080};
    private static final String[] PAYLOADS = {
        "", "GET /index.html HTTP/1.1\r\nHost: example.com\r\n\r\n", "GET / HTTP/1.0\r\nHost: www.cached.org\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: elsewhere.net\r\n\r\n", "id=1 union select password", "GET /../../etc/passwd HTTP/1.1",
        "select a from b where c", "hello"
    };

    private ExamplePackets() {}

    public static List<byte[]> packets(long seed, int n) {
        Random r = new Random(seed);
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(packet(r));
        return out;
    }

    private static byte[] packet(Random r) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[] {0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2});
        if (r.nextInt(12) == 0) {
            b.writeBytes(new byte[] {8, 6, 0, 1, 8, 0, 6, 4, 0, 1});
            b.writeBytes(new byte[20]);
            return b.toByteArray();
        }
        b.write(8);
        b.write(0);
        byte[] payload = PAYLOADS[r.nextInt(PAYLOADS.length)].getBytes(StandardCharsets.ISO_8859_1);
        boolean tcp = r.nextInt(5) != 0;
        int l4 = tcp ? 20 : 8;
        int total = 20 + l4 + payload.length;
        b.writeBytes(new byte[] {
            0x45,
            0,
            (byte) (total >> 8),
            (byte) total,
            0,
            1,
            0,
            0,
            (byte) (r.nextInt(8) == 0 ? 1 : 64),
            (byte) (tcp ? 6 : 17),
            0,
            0
        });
        for (int x : SRC[r.nextInt(SRC.length)]) b.write(x);
        for (int x : DST[r.nextInt(DST.length)]) b.write(x);
        int sport = 1024 + r.nextInt(1000), dport = PORTS[r.nextInt(PORTS.length)];
        b.writeBytes(new byte[] {(byte) (sport >> 8), (byte) sport, (byte) (dport >> 8), (byte) dport});
        if (tcp) {
            b.writeBytes(new byte[8]);
            b.writeBytes(new byte[] {0x50, 0x18, 0, 0, 0, 0, 0, 0});
        } else {
            b.writeBytes(new byte[] {(byte) ((8 + payload.length) >> 8), (byte) (8 + payload.length), 0, 0});
        }
        b.writeBytes(payload);
        return b.toByteArray();
    }
}
