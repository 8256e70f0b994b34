#!/usr/bin/env python3
"""Writes the demo's sample trace: a small, deterministic pcap of office traffic.

Clients in 10.0.1.0/24 talk to servers in 10.0.2.0/24: web requests (some carrying
attack strings that the sample IPS rules detect), DNS, ICMP echo, SSH and telnet
attempts (which the sample firewall drops) and a blacklisted source network.
Every packet is a complete Ethernet/IPv4 frame with correct checksums.

    make_trace.py OUT.pcap [--packets N] [--seed S]
"""
import argparse
import random
import struct

CLIENT_MAC = bytes.fromhex("020000000101")
SERVER_MAC = bytes.fromhex("020000000201")

WEB_SERVER = "10.0.2.10"
DNS_SERVER = "10.0.2.53"
SSH_SERVER = "10.0.2.20"
BLACKLISTED_NET = "10.66.0"

PATHS = ["/", "/index.html", "/news/today.html", "/img/logo.png", "/api/v1/items?id=42",
         "/static/app.js", "/static/site.css", "/docs/manual.pdf", "/search?q=openbox",
         "/products/list.json", "/about.html", "/login"]
AGENTS = ["Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0",
          "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0",
          "curl/8.5.0"]
# (request path, what it is): each is detected by one rule of ips.rules
ATTACKS = ["/cgi-bin/phf?Qalias=x%0a/bin/cat%20/etc/passwd",
           "/scripts/..%c0%af../winnt/system32/cmd.exe?/c+dir",
           "/search?q=<script>alert(document.cookie)</script>",
           "/item.php?id=1' UNION SELECT username,password FROM users--",
           "/download?file=../../../../etc/shadow"]


def ip(s):
    return bytes(int(x) for x in s.split("."))


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4(src, dst, proto, payload, ttl=64, ident=0):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0x4000, ttl, proto, 0,
                      ip(src), ip(dst))
    hdr = hdr[:10] + struct.pack("!H", checksum(hdr)) + hdr[12:]
    return hdr + payload


def l4_checksum(src, dst, proto, segment):
    pseudo = ip(src) + ip(dst) + struct.pack("!BBH", 0, proto, len(segment))
    return checksum(pseudo + segment)


def tcp(src, dst, sport, dport, seq, ack, flags, data=b""):
    seg = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + data
    c = l4_checksum(src, dst, 6, seg)
    return ipv4(src, dst, 6, seg[:16] + struct.pack("!H", c) + seg[18:])


def udp(src, dst, sport, dport, data):
    seg = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    c = l4_checksum(src, dst, 17, seg) or 0xFFFF
    return ipv4(src, dst, 17, seg[:6] + struct.pack("!H", c) + seg[8:])


def icmp_echo(src, dst, ident, seq):
    msg = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + bytes(range(32))
    msg = msg[:2] + struct.pack("!H", checksum(msg)) + msg[4:]
    return ipv4(src, dst, 1, msg)


def ether(packet, to_server=True):
    dst, src = (SERVER_MAC, CLIENT_MAC) if to_server else (CLIENT_MAC, SERVER_MAC)
    return dst + src + b"\x08\x00" + packet


def dns_query(rng, name):
    qid = rng.randrange(65536)
    q = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"
    return struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0) + q + struct.pack("!HH", 1, 1)


def http_get(rng, path):
    return ("GET %s HTTP/1.1\r\nHost: www.example.test\r\nUser-Agent: %s\r\n"
            "Accept: */*\r\nConnection: keep-alive\r\n\r\n" % (path, rng.choice(AGENTS))).encode()


def http_response(rng, path):
    body = ("<html><head><title>%s</title></head><body><p>%s</p></body></html>"
            % (path, " ".join(rng.choice(["open", "box", "network", "function", "graph"])
                              for _ in range(rng.randrange(20, 120))))).encode()
    return (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n"
            % len(body)) + body


def build(n, seed):
    rng = random.Random(seed)
    frames = []
    while len(frames) < n:
        client = "10.0.1.%d" % rng.randrange(2, 200)
        sport = rng.randrange(32768, 61000)
        kind = rng.random()
        if kind < 0.60:      # web exchange, sometimes an attack
            path = rng.choice(ATTACKS) if rng.random() < 0.08 else rng.choice(PATHS)
            seq, ack = rng.randrange(1 << 32), rng.randrange(1 << 32)
            frames.append(ether(tcp(client, WEB_SERVER, sport, 80, seq, 0, 0x02)))
            frames.append(ether(tcp(WEB_SERVER, client, 80, sport, ack, seq + 1, 0x12), False))
            req = http_get(rng, path)
            frames.append(ether(tcp(client, WEB_SERVER, sport, 80, seq + 1, ack + 1, 0x18, req)))
            resp = http_response(rng, path)
            frames.append(ether(tcp(WEB_SERVER, client, 80, sport, ack + 1, seq + 1 + len(req), 0x18,
                                    resp), False))
        elif kind < 0.78:    # DNS
            name = rng.choice(["www.example.test", "mail.example.test", "files.example.test"])
            frames.append(ether(udp(client, DNS_SERVER, sport, 53, dns_query(rng, name))))
        elif kind < 0.88:    # ping
            frames.append(ether(icmp_echo(client, WEB_SERVER, rng.randrange(65536), rng.randrange(100))))
        elif kind < 0.95:    # SSH / telnet attempts: the firewall drops them
            port = rng.choice([22, 23])
            frames.append(ether(tcp(client, SSH_SERVER, sport, port, rng.randrange(1 << 32), 0, 0x02)))
        else:                # a blacklisted network probing the web server
            src = "%s.%d" % (BLACKLISTED_NET, rng.randrange(1, 255))
            frames.append(ether(tcp(src, WEB_SERVER, sport, 80, rng.randrange(1 << 32), 0, 0x02)))
    return frames[:n]


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        t = 1_700_000_000 * 1_000_000
        for i, fr in enumerate(frames):
            ts = t + i * 100   # 10 kpps in capture time
            f.write(struct.pack("<IIII", ts // 1_000_000, ts % 1_000_000, len(fr), len(fr)))
            f.write(fr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--packets", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    write_pcap(args.out, build(args.packets, args.seed))


if __name__ == "__main__":
    main()
