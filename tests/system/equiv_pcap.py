#!/usr/bin/env python3
"""Crafted traffic for the chain equivalence test and the chain benchmark.

  equiv_pcap.py OUT.pcap [--repeat N]

Writes a classic pcap (DLT_EN10MB, microsecond timestamps 1 ms apart, so the
original order can be recovered from any output pcap) that exercises every rule
of the worked examples in obc/merge/examples:

  four-nf-chain  telnet (alert + drop), 10.66.0.0/16 sources (drop), other TCP/UDP
                 and ARP (pass), ICMP (no rule: drop); HTTP GETs to example.com,
                 www.cached.org (cache alert) and other hosts; department traffic
                 to 10.1.0.0/16 on 22-23 (log + drop), 80/443 (pass), other ports
                 (drop); the load-balanced address 10.1.0.100 from even and odd
                 sources (rewritten to 10.1.1.1 / 10.1.1.2), with TTL 64 and 1
                 (expired: drop)
  firewall-ips   the same mix also hits the blocked network, ports 22/80/443 and
                 UDP 53, and carries SQL injection and path traversal payloads

The packets are the full cross product of the sources, destinations, protocols,
ports, payloads and TTLs below, shuffled with a fixed seed (so batches mix every
path), then repeated N times (default 1). With --mostly-clean (for benchmarks) nine
times as many legitimate packets are added: TCP/UDP from random client addresses and
ports to random servers (198.51.100.0/24, the department's 10.1.0.0/16 on 80/443, the
load-balanced 10.1.0.100), web requests without attack patterns; so about 10% of the
packets hit an alert, log or drop rule and every rule is still hit. Same arguments,
same bytes.
"""
import argparse
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from frames import checksum as csum, ip_bytes as ip4  # noqa: E402

SRC = ["10.66.1.2", "192.0.2.10", "192.0.2.11", "10.1.5.7", "172.16.0.9"]
DST = ["10.1.0.100", "10.1.2.3", "198.51.100.7", "10.1.1.1"]
TCP_PORTS = [22, 23, 80, 443, 8080]
UDP_PORTS = [53, 123]
TTLS = [64, 1]
PAYLOADS = [
    b"",
    b"GET /index.html HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n",
    b"GET /img/logo.png HTTP/1.0\r\nHost: www.cached.org\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: other.net\r\n\r\n",
    b"GET /item?id=1 union select password from users HTTP/1.1\r\nHost: shop.example\r\n\r\n",
    b"POST /q HTTP/1.1\r\nHost: db.example\r\n\r\nselect name from users where id=1",
    b"GET /cgi-bin/../../etc/passwd HTTP/1.1\r\nHost: example.com\r\n\r\n",
]
MAC_DST = bytes.fromhex("020000000002")
MAC_SRC = bytes.fromhex("020000000001")


def ipv4(src, dst, proto, ttl, l4, ident):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), ident & 0xFFFF, 0, ttl, proto, 0, ip4(src), ip4(dst))
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return MAC_DST + MAC_SRC + b"\x08\x00" + hdr + l4


def l4_checksum(src, dst, proto, seg):
    pseudo = ip4(src) + ip4(dst) + struct.pack("!BBH", 0, proto, len(seg))
    return csum(pseudo + seg)


def tcp(src, dst, sport, dport, payload, seq):
    seg = struct.pack("!HHIIBBHHH", sport, dport, seq, 1, 5 << 4, 0x18, 65535, 0, 0) + payload
    c = l4_checksum(src, dst, 6, seg)
    return seg[:16] + struct.pack("!H", c) + seg[18:]


def udp(src, dst, sport, dport, payload):
    seg = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    c = l4_checksum(src, dst, 17, seg) or 0xFFFF
    return seg[:6] + struct.pack("!H", c) + seg[8:]


def icmp_echo(ident):
    msg = struct.pack("!BBHHH", 8, 0, 0, ident & 0xFFFF, 1) + b"ping" * 8
    return msg[:2] + struct.pack("!H", csum(msg)) + msg[4:]


def arp(src, dst):
    body = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, MAC_SRC, ip4(src), b"\0" * 6, ip4(dst))
    return b"\xff" * 6 + MAC_SRC + b"\x08\x06" + body


def legitimate(n, rng):
    """n packets every example forwards without an alert, a log or a drop."""
    out = []
    for k in range(n):
        src = "%s.%d" % (rng.choice(["192.0.2", "172.16.%d" % rng.randrange(256), "203.0.113"]), rng.randrange(1, 255))
        kind = rng.random()
        if kind < 0.5:
            dst, proto, port = "198.51.100.%d" % rng.randrange(1, 255), rng.choice([6, 6, 17]), None
            port = rng.choice([80, 443, 8080, 22]) if proto == 6 else rng.choice([53, 123, 5353])
        elif kind < 0.8:
            dst, proto, port = "10.1.%d.%d" % (rng.randrange(2, 256), rng.randrange(1, 255)), 6, rng.choice([80, 443])
        else:
            dst, proto, port = "10.1.0.100", 6, rng.choice([80, 443])
        sport = rng.randrange(1024, 65536)
        if proto == 17:
            out.append(ipv4(src, dst, 17, 64, udp(src, dst, sport, port, bytes(rng.randrange(256) for _ in range(24))), k))
        else:
            path = "/%s/%d.html" % (rng.choice(["news", "img", "api", "shop"]), rng.randrange(10**6))
            pl = b"" if port != 80 or rng.random() < 0.3 else \
                ("GET %s HTTP/1.1\r\nHost: www.site%d.net\r\nAccept: */*\r\n\r\n" % (path, rng.randrange(100))).encode()
            out.append(ipv4(src, dst, 6, 64, tcp(src, dst, sport, port, pl, rng.randrange(2**32)), k))
    return out


def frames(legit=0):
    out, k = [], 0
    for src in SRC:
        for dst in DST:
            out.append(arp(src, dst))
            for ttl in TTLS:
                for port in TCP_PORTS:
                    for pl in PAYLOADS:
                        k += 1
                        out.append(ipv4(src, dst, 6, ttl, tcp(src, dst, 40000 + k % 20000, port, pl, k * 7919), k))
                for port in UDP_PORTS:
                    k += 1
                    out.append(ipv4(src, dst, 17, ttl, udp(src, dst, 50000 + k % 10000, port, b"\x12\x34" * 10), k))
                k += 1
                out.append(ipv4(src, dst, 1, ttl, icmp_echo(k), k))
    rng = random.Random(4242)
    out += legitimate(legit * len(out), rng)
    rng.shuffle(out)
    return out


def write_pcap(path, pkts):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(pkts):
            t = 1_700_000_000_000_000 + i * 1000   # microseconds, 1 ms apart
            f.write(struct.pack("<IIII", t // 1_000_000, t % 1_000_000, len(p), len(p)))
            f.write(p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--mostly-clean", action="store_true")
    a = ap.parse_args()
    write_pcap(a.out, frames(9 if a.mostly_clean else 0) * a.repeat)


if __name__ == "__main__":
    main()
