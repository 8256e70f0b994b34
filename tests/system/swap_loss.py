#!/usr/bin/env python3
"""Driver of tests/system/swap_loss.sh: no frame lost at the OBI's interface across swaps.

Runs inside the OBI's network namespace (loopback there carries the control traffic);
the sender's socket is opened in the sender's namespace (lib/netns.py).

  swap_loss.py --obi OBI --sender-ns NS --rx IF --tx IF --peer-rx IF --peer-tx IF
               [--frames N] [--pps R] [--min-swaps K] [--workers W] [--swap-interval S]
               --log FILE

Plays the controller: a small HTTP endpoint takes what the OBI sends (Hello, KeepAlive,
responses); requests go to the OBI's /message/<Type>. Two phases, each with its own OBI
process:
  carried   graphs A and B alternate: the same FromDevice "in" (so it is carried with its
            socket and ring), a HeaderClassifier whose rules differ, and in B a Queue
            before the output (released downstream when A replaces B);
  handover  the same two graphs, and FromDevice "in" alternates promisc false / true, so
            every swap rebuilds it (the new one takes over the old one's sockets and rings).
In each phase a sender thread sends N numbered frames (UDP, TCP port 80 and TCP port 22)
at R frames/s on the peer of --rx, and the main thread swaps graphs, pausing S seconds
after each, until the sender is done (at least K swaps). Then, with the traffic drained:
  kernel rx_packets of --rx (frames delivered to the OBI's interface) == OBI packets_in
  (GlobalStats), and, in phase carried, == FromDevice "in" count; FromDevice drops == 0;
  packets_in == packets_out + packets_dropped; packets_out == kernel rx_packets of the peer
  of --tx; and the frames that came out are exactly the numbered frames the rules let
  through (none missing, none twice).
Exit status 0 when every check holds; one JSON line per phase on stdout.
"""
import argparse
import http.server
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import netns  # noqa: E402


class Endpoint:
    """The controller side: records every message the OBI posts, answers 200."""

    def __init__(self):
        self.cv = threading.Condition()
        self.by_xid = {}
        self.types = []
        endpoint = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    msg = json.loads(body)
                except ValueError:
                    msg = {"type": "unparsable"}
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
                with endpoint.cv:
                    endpoint.types.append(msg.get("type"))
                    if "xid" in msg:
                        endpoint.by_xid[msg["xid"]] = msg
                    endpoint.cv.notify_all()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, pred, timeout, what):
        end = time.time() + timeout
        with self.cv:
            while not pred():
                left = end - time.time()
                if left <= 0:
                    raise SystemExit("swap_loss: timed out waiting for " + what)
                self.cv.wait(left)

    def close(self):
        self.server.shutdown()


class Obi:
    def __init__(self, binary, workers, endpoint, log):
        self.ep = endpoint
        self.xid = 1000
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.proc = subprocess.Popen(
            [binary, "--dpid", "7", "--listen", "127.0.0.1:%d" % self.port,
             "--controller", "http://127.0.0.1:%d" % endpoint.port, "--workers", str(workers),
             "--insecure"],   # the test's controller endpoint speaks plain HTTP
            stdout=log, stderr=log)
        endpoint.wait(lambda: "Hello" in endpoint.types or self.proc.poll() is not None, 20, "the OBI's Hello")
        if self.proc.poll() is not None:
            raise SystemExit("swap_loss: the OBI exited with status %d (see the log)" % self.proc.returncode)

    def request(self, msg, timeout=20):
        self.xid += 1
        msg = dict(msg, xid=self.xid)
        req = urllib.request.Request("http://127.0.0.1:%d/message/%s" % (self.port, msg["type"]),
                                     data=json.dumps(msg).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=timeout).read()
        xid = self.xid
        self.ep.wait(lambda: xid in self.ep.by_xid, timeout, msg["type"] + " answer")
        answer = self.ep.by_xid.pop(xid)
        if answer.get("type") == "Error":
            raise SystemExit("swap_loss: %s failed: %s" % (msg["type"], json.dumps(answer)))
        return answer

    def set_graph(self, g):
        return self.request(dict(g, type="SetProcessingGraphRequest"))

    def read(self, block, handle):
        return self.request({"type": "ReadRequest", "block_id": block, "read_handle": handle})["result"]

    def stats(self):
        return self.request({"type": "GlobalStatsRequest"})["stats"]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def graph(variant, rx, tx, promisc):
    """A: UDP and TCP 80 out, the rest (TCP 22) dropped. B: TCP 80 out through a Queue,
    UDP out, the rest dropped; a different classifier config, so it is rebuilt."""
    ip = {"ETH_TYPE": "0x0800"}
    rules = [dict(ip, IP_PROTO=17), dict(ip, IP_PROTO=6, TCP_DST=80)]
    if variant == "B":
        rules = rules[::-1]
    blocks = [{"type": "FromDevice", "name": "in", "config": {"devname": rx, "promisc": promisc}},
              {"type": "HeaderClassifier", "name": "cls", "config": {"match": rules}},
              {"type": "ToDevice", "name": "out", "config": {"devname": tx}}]
    conns = [{"src": "in", "src_port": 0, "dst": "cls", "dst_port": 0}]
    if variant == "A":
        conns += [{"src": "cls", "src_port": 0, "dst": "out", "dst_port": 0},
                  {"src": "cls", "src_port": 1, "dst": "out", "dst_port": 0}]
    else:
        blocks.append({"type": "Queue", "name": "q", "config": {"capacity": 4096}})
        conns += [{"src": "cls", "src_port": 0, "dst": "q", "dst_port": 0},
                  {"src": "q", "src_port": 0, "dst": "out", "dst_port": 0},
                  {"src": "cls", "src_port": 1, "dst": "out", "dst_port": 0}]
    return {"blocks": blocks, "connectors": conns}


MAGIC = b"OBXSWAP1"


def frame(seq):
    """Numbered Ethernet/IPv4 frame: seq % 3 == 0 UDP, 1 TCP port 80, 2 TCP port 22."""
    kind = seq % 3
    proto = 17 if kind == 0 else 6
    payload = MAGIC + struct.pack("!I", seq) + bytes(20)
    if proto == 17:
        l4 = struct.pack("!HHHH", 40000, 53, 8 + len(payload), 0)
    else:
        l4 = struct.pack("!HHIIBBHHH", 40000 + seq % 1000, 80 if kind == 1 else 22, seq, 0, 0x50, 0x18, 512, 0, 0)
    total = 20 + len(l4) + len(payload)
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, seq & 0xffff, 0, 64, proto, 0,
                      bytes([10, 1, (seq >> 8) & 0xff, seq & 0xff]), bytes([10, 2, 0, 1]))
    return bytes.fromhex("020000000002") + bytes.fromhex("020b0b0b0b01") + b"\x08\x00" + iph + l4 + payload


def passes(seq):
    return seq % 3 != 2


def kernel_rx(ifname):
    with open("/sys/class/net/%s/statistics/rx_packets" % ifname) as f:
        return int(f.read())


def run_phase(args, name, log):
    ep = Endpoint()
    obi = Obi(args.obi, args.workers, ep, log)
    received = {}
    try:
        promisc = [False]
        obi.set_graph(graph("A", args.rx, args.tx, False))
        with netns.inside(args.sender_ns):
            snd = netns.raw_socket(args.peer_rx)
            sink = netns.raw_socket(args.peer_tx)
        # room for every frame out even when this process is slow to read (SO_RCVBUFFORCE, root)
        sink.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 64 << 20)
        base_rx = kernel_rx(args.rx)
        frames = [frame(i) for i in range(args.frames)]
        done = threading.Event()
        sent = [0]

        def sender():
            t0 = time.monotonic()
            for i, f in enumerate(frames):
                due = t0 + i / args.pps
                now = time.monotonic()
                if due > now:
                    time.sleep(due - now)
                while True:
                    try:
                        snd.send(f)
                        break
                    except BlockingIOError:
                        time.sleep(0.0005)
                sent[0] += 1
            done.set()

        def collector():
            def on_frame(_name, data, pkttype):
                if pkttype == socket.PACKET_OUTGOING:
                    return
                k = data.find(MAGIC)
                if k >= 0:
                    seq = struct.unpack("!I", data[k + 8:k + 12])[0]
                    received[seq] = received.get(seq, 0) + 1
            while not stop_collect.is_set():
                netns.drain({"sink": sink}, on_frame, wait=0.05)
            netns.drain({"sink": sink}, on_frame, wait=0.2)

        stop_collect = threading.Event()
        tc = threading.Thread(target=collector)
        tc.start()
        ts = threading.Thread(target=sender)
        t_start = time.monotonic()
        ts.start()
        swaps = 0
        variant = "A"
        while not done.is_set() or swaps < args.min_swaps:
            variant = "B" if variant == "A" else "A"
            if name == "handover":
                promisc[0] = not promisc[0]
            obi.set_graph(graph(variant, args.rx, args.tx, promisc[0]))
            swaps += 1
            time.sleep(args.swap_interval)
            if done.is_set() and swaps >= args.min_swaps:
                break
        ts.join()
        elapsed = time.monotonic() - t_start
        # let the OBI read what is still in flight, then end on graph A (B's queue released)
        time.sleep(0.5)
        obi.set_graph(graph("A", args.rx, args.tx, promisc[0]))
        time.sleep(0.5)
        stop_collect.set()
        tc.join()
        st = obi.stats()
        count = obi.read("in", "count")
        drops = obi.read("in", "drops")
        delivered = kernel_rx(args.rx) - base_rx
    finally:
        obi.stop()
        ep.close()
    expect_out = [i for i in range(args.frames) if passes(i)]
    missing = [i for i in expect_out if received.get(i, 0) == 0]
    twice = [i for i, n in received.items() if n > 1]
    unexpected = [i for i in received if not passes(i)]
    res = {"phase": name, "frames_sent": sent[0], "swaps": swaps, "seconds": round(elapsed, 2),
           "swaps_per_s": round(swaps / elapsed, 1) if elapsed else None,
           "kernel_rx": delivered, "obi_packets_in": st["packets_in"], "from_device_count": count,
           "from_device_drops": drops, "obi_packets_out": st["packets_out"],
           "obi_packets_dropped": st["packets_dropped"], "frames_out": sum(received.values()),
           "frames_out_expected": len(expect_out), "missing": len(missing), "duplicated": len(twice),
           "unexpected": len(unexpected)}
    problems = []
    if sent[0] != args.frames:
        problems.append("sent %d of %d frames" % (sent[0], args.frames))
    if swaps < args.min_swaps:
        problems.append("only %d swaps" % swaps)
    if delivered < args.frames:
        problems.append("the kernel delivered %d of %d frames to %s" % (delivered, args.frames, args.rx))
    if st["packets_in"] != delivered:
        problems.append("OBI packets_in %d != kernel rx_packets %d (lost at the interface: %d)"
                        % (st["packets_in"], delivered, delivered - st["packets_in"]))
    if name == "carried" and count != delivered:
        problems.append("FromDevice count %d != kernel rx_packets %d" % (count, delivered))
    if drops != 0:
        problems.append("FromDevice drops %d" % drops)
    if st["packets_in"] != st["packets_out"] + st["packets_dropped"]:
        problems.append("in %d != out %d + dropped %d" % (st["packets_in"], st["packets_out"], st["packets_dropped"]))
    if missing or twice or unexpected:
        problems.append("frames out: %d missing (first %s), %d twice, %d that the rules drop"
                        % (len(missing), missing[:5], len(twice), len(unexpected)))
    if st["packets_out"] != sum(received.values()):
        problems.append("OBI packets_out %d != frames seen on the output %d" % (st["packets_out"], sum(received.values())))
    res["ok"] = not problems
    print(json.dumps(res), flush=True)
    for p in problems:
        print("swap_loss: %s: %s" % (name, p), file=sys.stderr)
    return not problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--obi", required=True)
    ap.add_argument("--sender-ns", required=True)
    ap.add_argument("--rx", required=True)
    ap.add_argument("--tx", required=True)
    ap.add_argument("--peer-rx", required=True)
    ap.add_argument("--peer-tx", required=True)
    ap.add_argument("--frames", type=int, default=20000)
    ap.add_argument("--pps", type=int, default=5000)
    ap.add_argument("--min-swaps", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--swap-interval", type=float, default=0.01, help="pause after each swap (s)")
    ap.add_argument("--log", required=True)
    ap.add_argument("--phases", default="carried,handover")
    a = ap.parse_args()
    ok = True
    with open(a.log, "ab") as log:
        for phase in a.phases.split(","):
            ok &= run_phase(a, phase, log)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
