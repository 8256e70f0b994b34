"""Ethernet / IPv4 / TCP and UDP frames for the system tests, built with struct (no
third-party packet library), and the marker the tests use to recognise their own frames.

Every test frame ends its L4 payload with a 9-byte marker: b"OBX!", phase (1 byte),
kind (1 byte), sequence number (2 bytes, big endian), b"!". parse_marker() finds it again
in a received frame, so counting ignores any other traffic on an interface.
"""
import struct

MAGIC = b"OBX!"
MARKER_LEN = 9


def mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


def ip_bytes(ip):
    return bytes(int(x) for x in ip.split("."))


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def marker(phase, kind, seq):
    return MAGIC + struct.pack("!BBH", phase, kind, seq) + b"!"


def frame(src_mac, dst_mac, src_ip, dst_ip, proto, sport, dport, payload, ip_id=0):
    """An Ethernet II frame carrying IPv4 and a TCP (proto "tcp": flags ACK|PSH) or UDP
    ("udp") segment with correct checksums."""
    sip, dip = ip_bytes(src_ip), ip_bytes(dst_ip)
    if proto == "tcp":
        pnum = 6
        hdr = struct.pack("!HHIIBBHHH", sport, dport, 1000, 2000, 5 << 4, 0x18, 65535, 0, 0)
    elif proto == "udp":
        pnum = 17
        hdr = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
    else:
        raise ValueError("frame: protocol must be tcp or udp, got %r" % proto)
    l4 = hdr + payload
    pseudo = sip + dip + struct.pack("!BBH", 0, pnum, len(l4))
    csum = checksum(pseudo + l4)
    off = 16 if pnum == 6 else 6
    l4 = l4[:off] + struct.pack("!H", csum) + l4[off + 2:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), ip_id & 0xFFFF, 0x4000, 64, pnum, 0, sip, dip)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return mac_bytes(dst_mac) + mac_bytes(src_mac) + b"\x08\x00" + ip + l4


def parse_marker(data):
    """(phase, kind, seq) of a test frame (IPv4, marker at the end of the IP packet), else None."""
    if len(data) < 14 + 20 + MARKER_LEN or data[12:14] != b"\x08\x00":
        return None
    total = struct.unpack("!H", data[16:18])[0]
    end = 14 + total
    if end > len(data) or total < 20 + MARKER_LEN:
        return None
    m = data[end - MARKER_LEN:end]
    if m[:4] != MAGIC or m[8:9] != b"!":
        return None
    phase, kind, seq = struct.unpack("!BBH", m[4:8])
    return phase, kind, seq
