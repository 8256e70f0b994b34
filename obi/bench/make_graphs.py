#!/usr/bin/env python3
"""Benchmark graphs for `obi bench`, generated from the shared data sets.

  make_graphs.py --data ../shared/data --out DIR

writes into DIR (outside the repository: the ClassBench rule set is not redistributable):
  passthrough.json  FromDump -> Discard
  firewall.json     FromDump -> HeaderClassifier (fw-4560.classbench, one output per rule,
                    first match wins, every rule allows) -> Discard
  ips.json          FromDump -> HeaderPayloadClassifier (Snort web rules, content and pcre
                    turned into one regex per rule by snort2re.py; a last catch-all entry
                    passes the rest) -> Alert -> Discard / pass -> Discard
  fw_ips.json       the firewall followed by the IPS
  fw-4560.newflows.pcap  fw-4560.trace.pcap with every packet made a new flow: packet i's
                    TCP/UDP source port (other packets: the low 16 bits of the IPv4 source
                    address) becomes i, so no 5-tuple repeats within the trace (45,607
                    flows); the worst case for a flow cache

ClassBench rule: @sip/len dip/len sp_lo : sp_hi dp_lo : dp_hi proto/mask flags/mask.
Ports need IP_PROTO (which needs ETH_TYPE): a rule with exact protocol TCP or UDP keeps
its port ranges; a wildcard-protocol rule with port ranges that are not the full range
becomes two matches (TCP and UDP) on consecutive outputs, both allowed; full ranges are
dropped. TCP flags are not matched (the paper's firewall ignores them too).
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile


def firewall_matches(path):
    matches = []
    for line in open(path):
        line = line.strip()
        if not line.startswith("@"):
            continue
        f = line[1:].split()
        sip, dip = f[0], f[1]
        sp = (int(f[2]), int(f[4]))
        dp = (int(f[5]), int(f[7]))
        proto, pmask = (int(x, 16) for x in f[8].split("/"))
        base = {"ETH_TYPE": "0x0800"}
        if not sip.endswith("/0"):
            base["IPV4_SRC"] = sip
        if not dip.endswith("/0"):
            base["IPV4_DST"] = dip
        ports_full = sp == (0, 65535) and dp == (0, 65535)

        def with_ports(prefix, m):
            if sp != (0, 65535):
                m[prefix + "_SRC"] = str(sp[0]) if sp[0] == sp[1] else "[%d:%d]" % sp
            if dp != (0, 65535):
                m[prefix + "_DST"] = str(dp[0]) if dp[0] == dp[1] else "[%d:%d]" % dp
            return m

        if pmask == 0xFF:
            m = dict(base, IP_PROTO=str(proto))
            if proto in (6, 17):
                with_ports("TCP" if proto == 6 else "UDP", m)
            matches.append(m)
        elif ports_full:
            matches.append(base)
        else:
            matches.append(with_ports("TCP", dict(base, IP_PROTO="6")))
            matches.append(with_ports("UDP", dict(base, IP_PROTO="17")))
    return matches


HS_UNSUPPORTED = re.compile(r"\(\?[=!<]|\\[1-9]|\(\?[a-zA-Z]*-|\\[zZAG]|\(\?\(")


def embedded_anchor(rx):
    """True when ^ or $ appears outside a character class somewhere Hyperscan refuses
    (anywhere but the very start / end of the pattern)."""
    i, cls = 0, False
    while i < len(rx):
        c = rx[i]
        if c == "\\":
            i += 2
            continue
        if cls:
            cls = c != "]"
        elif c == "[":
            cls = True
            if rx[i + 1:i + 2] == "^":
                i += 1
        elif c == "^" and i > 0:
            return True
        elif c == "$" and i < len(rx) - 1:
            return True
        i += 1
    return False


def ips_patterns(data):
    script = os.path.join(data, "pcap", "generated", "snort2re.py")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rules.json")
        subprocess.run([sys.executable, script, os.path.join(data, "snort-web.rules"), out],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rules = json.load(open(out))
    pats, dropped = [], 0
    for r in rules:
        rx = r.get("regex")
        if not rx or HS_UNSUPPORTED.search(rx) or embedded_anchor(rx):
            dropped += 1
            continue
        pats.append((r["sid"], rx))
    return pats, dropped


def ipv4_checksum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def new_flows_pcap(src, dst):
    """Copies pcap `src` to `dst` with packet i's source port (or IPv4 source) set to i."""
    data = open(src, "rb").read()
    out = bytearray(data[:24])
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off, i = 24, 0
    while off + 16 <= len(data):
        caplen = struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        frame = bytearray(data[off + 16:off + 16 + caplen])
        if i > 0xFFFF:
            raise SystemExit("new_flows_pcap: more than 65536 packets")
        l3 = 14
        etype = struct.unpack("!H", frame[12:14])[0] if len(frame) >= 14 else 0
        while etype in (0x8100, 0x88A8) and len(frame) >= l3 + 4:
            etype = struct.unpack("!H", frame[l3 + 2:l3 + 4])[0]
            l3 += 4
        if etype == 0x0800 and len(frame) >= l3 + 20:
            ihl = (frame[l3] & 0x0F) * 4
            proto = frame[l3 + 9]
            first = struct.unpack("!H", frame[l3 + 6:l3 + 8])[0] & 0x1FFF == 0
            l4 = l3 + ihl
            if proto in (6, 17) and first and len(frame) >= l4 + 4:
                frame[l4:l4 + 2] = struct.pack("!H", i)
            else:
                frame[l3 + 14:l3 + 16] = struct.pack("!H", i)
                frame[l3 + 10:l3 + 12] = b"\0\0"
                frame[l3 + 10:l3 + 12] = struct.pack("!H", ipv4_checksum(bytes(frame[l3:l3 + ihl])))
        out += data[off:off + 16] + frame
        off += 16 + caplen
        i += 1
    with open(dst, "wb") as f:
        f.write(out)
    return i


def block(t, name, config=None):
    return {"type": t, "name": name, "config": config or {}}


def conn(s, sp, d, dp=0):
    return {"src": s, "src_port": sp, "dst": d, "dst_port": dp}


def firewall_part(matches, src):
    blocks = [block("HeaderClassifier", "fw", {"match": matches})]
    conns = [conn(src, 0, "fw")]
    return blocks, conns


def ips_part(pats, src):
    match = [{"payload_match": [{"pattern": rx, "is_regex": True}]} for _, rx in pats]
    match.append({})   # catch-all: traffic that matches no rule passes
    blocks = [block("HeaderPayloadClassifier", "ips", {"match": match}),
              block("Alert", "alert", {"alerts": [{"message": "IPS: Snort web rule matched", "severity": 3}]}),
              block("Discard", "blocked")]
    conns = [conn(src, 0, "ips")] + [conn("ips", i, "alert") for i in range(len(pats))]
    conns.append(conn("alert", 0, "blocked"))
    return blocks, conns, len(pats)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    data = os.path.abspath(a.data)
    os.makedirs(a.out, exist_ok=True)
    fw_pcap = os.path.join(data, "fw-4560.trace.pcap")
    http_pcap = os.path.join(data, "pcap", "generated", "http-trace.pcap")

    def write(name, g):
        with open(os.path.join(a.out, name + ".json"), "w") as f:
            json.dump(g, f)

    src = lambda pcap: block("FromDump", "in", {"filename": pcap})
    write("passthrough", {"blocks": [src(fw_pcap), block("Discard", "out")], "connectors": [conn("in", 0, "out")]})

    matches = firewall_matches(os.path.join(data, "fw-4560.classbench"))
    fb, fc = firewall_part(matches, "in")
    write("firewall", {"blocks": [src(fw_pcap)] + fb + [block("Discard", "out")],
                       "connectors": fc + [conn("fw", i, "out") for i in range(len(matches))]})

    pats, dropped = ips_patterns(data)
    ib, ic, n = ips_part(pats, "in")
    ic.append(conn("ips", n, "out"))
    write("ips", {"blocks": [src(http_pcap)] + ib + [block("Discard", "out")], "connectors": ic})

    ib, ic, n = ips_part(pats, "in")
    fwips_blocks = [src(http_pcap)] + fb + ib + [block("Discard", "out")]
    # Every FW output leads into the IPS (an input accepts any number of connectors).
    ic = [c for c in ic if c["src"] != "in"]
    fwips_conns = fc + [conn("fw", i, "ips") for i in range(len(matches))] + ic + [conn("ips", n, "out")]
    write("fw_ips", {"blocks": fwips_blocks, "connectors": fwips_conns})
    new_flows_pcap(fw_pcap, os.path.join(a.out, "fw-4560.newflows.pcap"))
    print("graphs in %s: firewall %d matches (from 4560 rules), ips %d patterns (%d rules not expressible)"
          % (a.out, len(matches), n, dropped), file=sys.stderr)


if __name__ == "__main__":
    main()
