#!/usr/bin/env python3
"""Forwarding over real I/O: an OBI between two veth pairs, fed by a second OBI.

    gen ns: OBI "generator" (FromDump of the trace, repeated -> ToDevice g0)
       g0 ==== i0  [ dut ns: OBI under test, FromDevice i0 -> graph -> ToDevice o0 ]  o0 ==== s0  (sink ns)

The OBI under test runs each graph (pass-through, the 4560-rule ClassBench firewall with
every rule forwarding) over AF_PACKET and over DPDK's af_packet poll-mode driver on the same
veths. The generator sends the fw-4560 trace (repeated) as fast as it can; figures: packets
offered (generator's ToDevice), received by the OBI (FromDevice count), its input drops, and
forwarded (the sink veth's rx_packets; offered is the generator veth's tx_packets), as rates over the generator's run time.
One JSON line per case on stdout. Run by bench/io.sh (root).
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import time


def sh(*cmd, **kw):
    return subprocess.run(list(cmd), check=True, **kw)


def ns_exec(ns, *cmd, **kw):
    return ["ip", "netns", "exec", ns] + list(cmd)


def repeat_pcap(src, dst, times):
    """A pcap holding the records of src `times` over (built once)."""
    if os.path.exists(dst):
        return
    with open(src, "rb") as f:
        data = f.read()
    header, records = data[:24], data[24:]
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header)
        for _ in range(times):
            f.write(records)
    os.rename(tmp, dst)


def count_records(path):
    with open(path, "rb") as f:
        data = f.read()
    n, off = 0, 24
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        off += 16 + incl
        n += 1
    return n


def dev_counter(ns, dev, what):
    out = subprocess.run(ns_exec(ns, "cat", "/sys/class/net/%s/statistics/%s" % (dev, what)),
                         capture_output=True, text=True, check=True).stdout
    return int(out)


def summary_counts(text, block):
    m = re.search(r"^\s+%s\s+\S+\s+count=(\d+)(?: byte_count=\d+)?(?: drops=(\d+))?" % re.escape(block), text, re.M)
    return (int(m.group(1)), int(m.group(2) or 0)) if m else (0, 0)


def run_seconds(text):
    m = re.search(r"after ([0-9.]+) s", text)
    return float(m.group(1)) if m else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--obi", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    P = args.prefix
    gen, dut, sink = P + "-gen", P + "-dut", P + "-sink"

    trace = os.path.join(args.data, "fw-4560.trace.pcap")
    pcap = os.path.join(args.work, "fw-4560-x%d.pcap" % args.repeat)
    repeat_pcap(trace, pcap, args.repeat)
    records = count_records(trace) * args.repeat

    # the firewall's rules from the engine benchmark's graph generator
    graphs = os.path.join(args.work, "graphs")
    sh(sys.executable, os.path.join(os.path.dirname(__file__), "..", "obi", "bench", "make_graphs.py"),
       "--data", args.data, "--out", graphs, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    fw_rules = next(b for b in json.load(open(os.path.join(graphs, "firewall.json")))["blocks"]
                    if b["type"] == "HeaderClassifier")

    def dut_graph(kind, rx, tx):
        blocks = [{"type": "FromDevice", "name": "in", "config": {"devname": rx}},
                  {"type": "ToDevice", "name": "out", "config": {"devname": tx}}]
        if kind == "passthrough":
            return {"blocks": blocks, "connectors": [{"src": "in", "src_port": 0, "dst": "out", "dst_port": 0}]}
        fw = dict(fw_rules, name="fw")
        conns = [{"src": "in", "src_port": 0, "dst": "fw", "dst_port": 0}]
        conns += [{"src": "fw", "src_port": i, "dst": "out", "dst_port": 0} for i in range(len(fw["config"]["match"]))]
        return {"blocks": blocks + [fw], "connectors": conns}

    gen_graph = {"blocks": [{"type": "FromDump", "name": "trace", "config": {"filename": pcap}},
                            {"type": "ToDevice", "name": "wire", "config": {"devname": "g0"}}],
                 "connectors": [{"src": "trace", "src_port": 0, "dst": "wire", "dst_port": 0}]}
    gen_path = os.path.join(args.work, "generator.json")
    json.dump(gen_graph, open(gen_path, "w"))

    dpdk_eal = "--no-huge -m 1024 --no-pci --no-shconf --file-prefix %s " \
               "--vdev=net_af_packet0,iface=i0,blocksz=131072,framesz=2048,framecnt=512 " \
               "--vdev=net_af_packet1,iface=o0" % P
    cases = [("passthrough", "af_packet"), ("firewall", "af_packet"),
             ("passthrough", "dpdk_af_packet_pmd"), ("firewall", "dpdk_af_packet_pmd")]
    for kind, io in cases:
        dpdk = io != "af_packet"
        g = dut_graph(kind, "dpdk:0" if dpdk else "i0", "dpdk:1" if dpdk else "o0")
        gpath = os.path.join(args.work, "dut-%s-%s.json" % (kind, io))
        json.dump(g, open(gpath, "w"))
        cmd = [args.obi, "run", "--graph", gpath, "--workers", str(args.workers)]
        if dpdk:
            cmd += ["--dpdk", dpdk_eal]
        log_path = os.path.join(args.work, "dut-%s-%s.log" % (kind, io))
        with open(log_path, "w") as log:
            obi = subprocess.Popen(ns_exec(dut, *cmd), stdout=log, stderr=subprocess.STDOUT)
            time.sleep(3.0 if kind == "firewall" else 1.0)   # rte_acl build settles
            sink_before = dev_counter(sink, "s0", "rx_packets")
            gen_before = dev_counter(gen, "g0", "tx_packets")
            r = subprocess.run(ns_exec(gen, args.obi, "run", "--graph", gen_path, "--workers", "1"),
                               capture_output=True, text=True, timeout=600)
            time.sleep(0.5)   # frames still in flight
            sink_after = dev_counter(sink, "s0", "rx_packets")
            offered = dev_counter(gen, "g0", "tx_packets") - gen_before
            obi.send_signal(2)
            obi.wait(30)
        dut_text = open(log_path).read()
        gen_secs = run_seconds(r.stdout)
        received, drops = summary_counts(dut_text, "in")
        forwarded = sink_after - sink_before
        print(json.dumps({
            "bench": "io", "graph": kind, "io": io, "workers": args.workers, "trace_packets": records,
            "seconds": round(gen_secs, 3), "offered": offered, "received": received, "input_drops": drops,
            "forwarded": forwarded,
            "offered_mpps": round(offered / gen_secs / 1e6, 3) if gen_secs else 0,
            "forwarded_mpps": round(forwarded / gen_secs / 1e6, 3) if gen_secs else 0,
            "forwarded_share": round(forwarded / offered, 4) if offered else 0}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
