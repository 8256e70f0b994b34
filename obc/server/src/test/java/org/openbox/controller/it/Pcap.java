package org.openbox.controller.it;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes small classic pcap files (little-endian, microsecond timestamps, Ethernet) with
 * IPv4 TCP or UDP packets, for feeding a real OBI through {@code --device-map NAME=pcap:FILE}.
 */
final class Pcap {

    /** One packet: IPv4 from 10.0.0.1 to 10.0.0.2, TCP (proto 6) or UDP (17), with a payload. */
    record Packet(int proto, int srcPort, int dstPort, String payload) {
        static Packet tcp(int dstPort, String payload) {
            return new Packet(6, 40000, dstPort, payload);
        }

        static Packet udp(int dstPort, String payload) {
            return new Packet(17, 40001, dstPort, payload);
        }
    }

    private Pcap() {}

    static void write(Path file, List<Packet> packets) throws IOException {
        write(file, packets, 1_000_000);
    }

    /** The packets with timestamps {@code gapMicros} apart (replayed at that pace by FromDump with timing). */
    static void write(Path file, List<Packet> packets, long gapMicros) throws IOException {
        ByteBuffer out = ByteBuffer.allocate(24 + packets.size() * 2048).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(0xa1b2c3d4)
                .putShort((short) 2)
                .putShort((short) 4)
                .putInt(0)
                .putInt(0)
                .putInt(65535)
                .putInt(1);
        long micros = 1_700_000_000L * 1_000_000L;
        for (Packet p : packets) {
            byte[] frame = frame(p);
            out.putInt((int) (micros / 1_000_000))
                    .putInt((int) (micros % 1_000_000))
                    .putInt(frame.length)
                    .putInt(frame.length)
                    .put(frame);
            micros += gapMicros;
        }
        byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        Files.write(file, bytes);
    }

    private static byte[] frame(Packet p) {
        byte[] payload = p.payload().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int l4 = p.proto() == 6 ? 20 : 8;
        int ipLen = 20 + l4 + payload.length;
        ByteBuffer f = ByteBuffer.allocate(14 + ipLen).order(ByteOrder.BIG_ENDIAN);
        f.put(new byte[] {2, 0, 0, 0, 0, 2}).put(new byte[] {2, 0, 0, 0, 0, 1}).putShort((short) 0x0800);
        int ip = f.position();
        f.put((byte) 0x45)
                .put((byte) 0)
                .putShort((short) ipLen)
                .putShort((short) 1)
                .putShort((short) 0x4000)
                .put((byte) 64)
                .put((byte) p.proto())
                .putShort((short) 0)
                .put(new byte[] {10, 0, 0, 1})
                .put(new byte[] {10, 0, 0, 2});
        f.putShort(ip + 10, checksum(f.array(), ip, 20));
        f.putShort((short) p.srcPort()).putShort((short) p.dstPort());
        if (p.proto() == 6) {
            // seq, ack, data offset 5 words, flags PSH+ACK, window; checksum left 0 (nothing verifies it)
            f.putInt(1)
                    .putInt(0)
                    .put((byte) 0x50)
                    .put((byte) 0x18)
                    .putShort((short) 65535)
                    .putShort((short) 0)
                    .putShort((short) 0);
        } else {
            f.putShort((short) (8 + payload.length)).putShort((short) 0);
        }
        f.put(payload);
        return f.array();
    }

    private static short checksum(byte[] b, int off, int len) {
        int sum = 0;
        for (int i = 0; i < len; i += 2) {
            sum += ((b[off + i] & 0xff) << 8) | (b[off + i + 1] & 0xff);
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        return (short) ~sum;
    }
}
