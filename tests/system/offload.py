#!/usr/bin/env python3
"""Real TCP, UDP and ICMP through an OBI between two veth pairs whose offloads are left as
the kernel sets them (checksum offload, TSO/GSO on): pass-through, a firewall and NAT.

    client ns (a0 10.78.0.1) == oa [ OBI ns: FromDevice/ToDevice ] ob == (b0 10.78.0.2) server ns

Run by offload.sh (as root); every check is printed; exit 1 when one fails.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

CLIENT, SERVER, NAT_ADDR = "10.78.0.1", "10.78.0.2", "10.78.0.9"
BLOB_BYTES = 4 * 1024 * 1024

failures = []


def check(ok, what, detail=""):
    print("offload: %s %s%s" % ("ok:  " if ok else "FAIL:", what, (" (%s)" % detail) if detail else ""), flush=True)
    if not ok:
        failures.append(what)


def netns(ns, *cmd, **kw):
    return subprocess.run(["ip", "netns", "exec", ns] + list(cmd), **kw)


# ------------------------------------------------------------------ graphs
def dev(name, devname, kind):
    return {"type": kind, "name": name, "config": {"devname": devname}}


def link(src, dst, src_port=0, dst_port=0):
    return {"src": src, "src_port": src_port, "dst": dst, "dst_port": dst_port}


def pass_graph():
    return {"blocks": [dev("in_a", "oa", "FromDevice"), dev("out_b", "ob", "ToDevice"),
                       dev("in_b", "ob", "FromDevice"), dev("out_a", "oa", "ToDevice")],
            "connectors": [link("in_a", "out_b"), link("in_b", "out_a")]}


def firewall_graph():
    g = pass_graph()
    g["blocks"] += [{"type": "HeaderClassifier", "name": "fw", "config": {"match": [
        {"ETH_TYPE": "0x0800", "IP_PROTO": 6, "TCP_DST": 9999}, {}]}},
        {"type": "Discard", "name": "deny", "config": {}}]
    g["connectors"] = [link("in_a", "fw"), link("fw", "deny", 0), link("fw", "out_b", 1), link("in_b", "out_a")]
    return g


def nat_graph():
    """TCP and UDP from the client leave with source NAT_ADDR (ports 20000-29999); the
    replies are translated back; everything else passes unchanged."""
    split = {"match": [{"ETH_TYPE": "0x0800", "IP_PROTO": 6}, {"ETH_TYPE": "0x0800", "IP_PROTO": 17}, {}]}
    g = pass_graph()
    g["blocks"] += [{"type": "HeaderClassifier", "name": "split_a", "config": split},
                    {"type": "HeaderClassifier", "name": "split_b", "config": split},
                    {"type": "Ipv4AddressTranslator", "name": "nat", "config": {"input_spec": [
                        "pattern %s 20000-29999 - - 0 1" % NAT_ADDR, "pass 1"]}}]
    g["connectors"] = [link("in_a", "split_a"), link("split_a", "nat", 0, 0), link("split_a", "nat", 1, 0),
                       link("split_a", "out_b", 2), link("in_b", "split_b"), link("split_b", "nat", 0, 1),
                       link("split_b", "nat", 1, 1), link("split_b", "out_a", 2),
                       link("nat", "out_b", 0), link("nat", "out_a", 1)]
    return g


# ------------------------------------------------------------------ traffic
SERVER_PY = r"""
import hashlib, socket, socketserver, sys, threading
class Sink(socketserver.BaseRequestHandler):
    # reads a length-prefixed upload, answers its sha256 and the peer's address
    def handle(self):
        n = int.from_bytes(self.request.recv(8, socket.MSG_WAITALL), "big")
        h, left = hashlib.sha256(), n
        while left:
            b = self.request.recv(min(left, 65536))
            if not b: break
            h.update(b); left -= len(b)
        self.request.sendall((h.hexdigest() + " " + self.client_address[0]).encode())
class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        data, sock = self.request
        sock.sendto(data, self.client_address)
class T(socketserver.ThreadingTCPServer): allow_reuse_address = True; daemon_threads = True
servers = [T((sys.argv[1], 9000), Sink), T((sys.argv[1], 9999), Sink),
           socketserver.ThreadingUDPServer((sys.argv[1], 9001), Echo)]
for s in servers: threading.Thread(target=s.serve_forever, daemon=True).start()
print("ready", flush=True)
sys.stdin.read()   # until the test closes stdin
"""

CLIENT_PY = r"""
import hashlib, json, os, socket, struct, sys, time, urllib.request
server, blob_sha = sys.argv[1], sys.argv[2]
out = {}
# download: the server's TSO super-frames cross the OBI
try:
    d = urllib.request.urlopen("http://%s:8080/blob.bin" % server, timeout=10).read()
    out["download"] = [len(d), hashlib.sha256(d).hexdigest() == blob_sha]
except Exception as e:
    out["download"] = [0, str(e)]
# upload: the client's super-frames cross the OBI
try:
    data = os.urandom(4 * 1024 * 1024)
    s = socket.create_connection((server, 9000), timeout=10)
    s.sendall(len(data).to_bytes(8, "big") + data)
    sha, peer = s.recv(200).decode().split()
    out["upload"] = [sha == hashlib.sha256(data).hexdigest(), peer]
    s.close()
except Exception as e:
    out["upload"] = [False, str(e)]
# blocked port: a listener is there, the firewall (if any) drops the SYN
try:
    socket.create_connection((server, 9999), timeout=2).close()
    out["port9999"] = "open"
except OSError as e:
    out["port9999"] = "closed: %s" % e
# UDP echo: 200 datagrams of 1..1400 bytes, checksums computed by the device
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(1)
ok = missed = 0
for i in range(200):
    msg = (b"%05d" % i) * (1 + (i * 37) % 280)
    u.sendto(msg, (server, 9001))
    try:
        if u.recvfrom(2048)[0] == msg: ok += 1; missed = 0
    except socket.timeout:
        missed += 1
        if missed == 5: break   # the path is broken: do not wait for every datagram
out["udp"] = ok
# ICMP echo through a raw socket (there is no ping): the server's kernel answers
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s & 0xffff) + (s >> 16); s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
r = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
r.settimeout(1)
got = 0
for seq in range(20):
    if seq >= 5 and got == 0: break
    body = struct.pack("!HH", 0x4f42, seq) + b"openbox-offload"
    hdr = struct.pack("!BBH", 8, 0, 0)
    pkt = struct.pack("!BBH", 8, 0, csum(hdr + body)) + body
    r.sendto(pkt, (server, 0))
    deadline = time.time() + 1
    while time.time() < deadline:
        try:
            reply = r.recv(2048)
        except socket.timeout:
            break
        icmp = reply[(reply[0] & 15) * 4:]
        if icmp[0] == 0 and icmp[4:8] == body[:4]:
            got += 1
            break
out["icmp"] = got
print(json.dumps(out))
"""


def run_case(args, name, graph, work, blob_sha, expect_nat=False, expect_blocked=False):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(graph, f)
    log = open(os.path.join(work, name + "-obi.log"), "w")
    obi = subprocess.Popen(["ip", "netns", "exec", args.ns_obi, args.obi, "run", "--graph", path, "--workers", "1"],
                           stdout=log, stderr=subprocess.STDOUT)
    try:
        time.sleep(1.0)
        check(obi.poll() is None, "%s: OBI runs the graph" % name)
        try:
            r = netns(args.ns_client, sys.executable, "-c", CLIENT_PY, SERVER, blob_sha,
                      capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            check(False, "%s: client finished within 120 s" % name)
            return
        if r.returncode != 0:
            check(False, "%s: client ran" % name, r.stderr.strip()[-400:])
            return
        res = json.loads(r.stdout.strip().splitlines()[-1])
    finally:
        obi.send_signal(2)
        try:
            obi.wait(10)
        except subprocess.TimeoutExpired:
            obi.kill()
        log.close()
    dl = res["download"]
    check(dl[0] == BLOB_BYTES and dl[1] is True, "%s: HTTP download of %d bytes, byte-identical" % (name, BLOB_BYTES),
          "got %s bytes, %s" % (dl[0], dl[1]))
    up = res["upload"]
    check(up[0] is True, "%s: TCP upload of 4 MiB, byte-identical at the server" % name, str(up))
    if expect_nat:
        check(up[1] == NAT_ADDR, "%s: the server saw the client as %s" % (name, NAT_ADDR), "saw %s" % up[1])
    elif up[0] is True:
        check(up[1] == CLIENT, "%s: the server saw the client's own address" % name, "saw %s" % up[1])
    if expect_blocked:
        check(res["port9999"].startswith("closed"), "%s: TCP to port 9999 dropped by the firewall" % name,
              res["port9999"])
    else:
        check(res["port9999"] == "open", "%s: TCP to port 9999 passes" % name, res["port9999"])
    check(res["udp"] == 200, "%s: UDP echo, 200 of 200 datagrams" % name, "%d" % res["udp"])
    check(res["icmp"] == 20, "%s: ICMP echo, 20 of 20" % name, "%d" % res["icmp"])
    summary = open(log.name).read()
    offloads = sum(int(x) for x in re.findall(r"FromDevice\s+count=\d+ byte_count=\d+ drops=\d+ offloads=(\d+)", summary))
    drops = sum(int(x) for x in re.findall(r"FromDevice\s+count=\d+ byte_count=\d+ drops=(\d+)", summary))
    check(offloads > 0, "%s: frames left to the device were finished by the OBI" % name, "offloads=%d" % offloads)
    check(drops == 0, "%s: no frame dropped at the OBI's inputs" % name, "drops=%d" % drops)


def main():
    ap = argparse.ArgumentParser()
    for a in ("--obi", "--ns-client", "--ns-obi", "--ns-server", "--work"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    www = tempfile.mkdtemp(prefix="www", dir=args.work)
    blob = os.urandom(BLOB_BYTES)
    with open(os.path.join(www, "blob.bin"), "wb") as f:
        f.write(blob)
    blob_sha = hashlib.sha256(blob).hexdigest()

    http = subprocess.Popen(["ip", "netns", "exec", args.ns_server, sys.executable, "-m", "http.server", "8080",
                             "--bind", SERVER, "--directory", www], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sink = subprocess.Popen(["ip", "netns", "exec", args.ns_server, sys.executable, "-c", SERVER_PY, SERVER],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        check(sink.stdout.readline().strip() == "ready", "servers up in the server namespace")
        time.sleep(0.5)
        run_case(args, "pass", pass_graph(), args.work, blob_sha)
        run_case(args, "firewall", firewall_graph(), args.work, blob_sha, expect_blocked=True)
        run_case(args, "nat", nat_graph(), args.work, blob_sha, expect_nat=True)
    finally:
        http.terminate()
        sink.stdin.close()
        sink.terminate()
    if failures:
        print("offload: %d check(s) failed: %s" % (len(failures), "; ".join(failures)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
