#!/usr/bin/env python3
"""Runs the naive chain and the merged graph on one pcap with `obi run` and compares them.

  equiv_run.py --obi OBI --name NAME --naive N.json --merged M.json --pcap P.pcap
               --work DIR [--in eth0] [--out eth1 ...] [--timing]
               [--expect-event ORIGIN ...] [--expect-block BLOCK ...]

Both graphs get FromDump(P.pcap) for --in and ToDump(DIR/NAME.<variant>.<dev>.pcap) for
each --out device, and run with one worker until the pcap ends. Compared:

  * packets in / out / dropped (the OBI's summary)
  * every output pcap: byte-identical files. The OBI reads 32 packets at a time and a
    classifier sends each output's share of a batch on as one sub-batch, so two graphs of
    different shapes may interleave the packets of one batch differently. Packets are
    matched to the input by their original timestamps (kept by ToDump; they must be
    unique in the input): when the files differ only inside input batches (same packets,
    same bytes, the same batches in the same order) that is reported, not failed; any
    other difference fails. With --timing, FromDump paces the input (the crafted pcap is
    1 ms spaced) so that packets mostly travel alone and the files must be identical
    (one retry; a loaded machine still batches: use it on a quiet one).
  * alerts and logs (`obi run` prints them on stderr as "alert [block] severity N: msg";
    merged copies of one block are named block#2, block#3...: compared without the suffix):
    the same sequence with --timing, the same multiset otherwise.

--expect-event ORIGIN / --expect-block BLOCK check that the pcap exercises the rules:
the naive run must show at least one event from ORIGIN (ORIGIN* : any origin starting
so) / a non-zero count for BLOCK.
Exit 0 when equivalent, 1 with a diff summary otherwise.
"""
import argparse
import collections
import json
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EVENT = re.compile(r"^(alert|log) \[([^\]]*)\] severity (\d+): (.*)$")
COPY = re.compile(r"#\d+$")
EVENT_RING = 4096   # per-worker alert/log ring of the OBI (RuntimeOptions::event_ring)
BATCH = 32          # packets a source hands to the graph at once (kBatchSize)


def read_pcap(path):
    with open(path, "rb") as f:
        d = f.read()
    if len(d) < 24:
        raise SystemExit("equiv_run.py: %s: not a pcap file (%d bytes)" % (path, len(d)))
    magic = struct.unpack("<I", d[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    nano = magic in (0xA1B23C4D, 0x4D3CB2A1)
    out, o = [], 24
    while o + 16 <= len(d):
        s, frac, cl, _ = struct.unpack(endian + "IIII", d[o:o + 16])
        out.append((s * 10**9 + (frac if nano else frac * 1000), d[o + 16:o + 16 + cl]))
        o += 16 + cl
    return out


def run_variant(a, variant, graph):
    g = json.load(open(graph))
    outs = {}
    for b in g["blocks"]:
        dev = (b.get("config") or {}).get("devname")
        if b["type"] == "FromDevice" and dev == a.input:
            b["type"], b["config"] = "FromDump", dict({"filename": a.pcap}, **({"timing": True} if a.timing else {}))
        elif b["type"] == "ToDevice" and dev in a.out:
            outs[dev] = os.path.join(a.work, "%s.%s.%s.pcap" % (a.name, variant, dev))
            b["type"], b["config"] = "ToDump", {"filename": outs[dev]}
    if not any(b["type"] == "FromDump" for b in g["blocks"]):
        raise SystemExit("equiv_run.py: %s: %s has no FromDevice with devname %s" % (a.name, graph, a.input))
    for dev in a.out:   # a device no block writes stays an empty capture
        outs.setdefault(dev, None)
    bound = os.path.join(a.work, "%s.%s.graph.json" % (a.name, variant))
    json.dump(g, open(bound, "w"))
    p = subprocess.run([a.obi, "run", "--graph", bound, "--workers", "1"], capture_output=True, text=True, timeout=90)
    if p.returncode != 0:
        raise SystemExit("equiv_run.py: %s: obi run of the %s graph failed (exit %d):\n%s"
                         % (a.name, variant, p.returncode, p.stderr[-2000:]))
    events = [m.groups() for m in map(EVENT.match, p.stderr.splitlines()) if m]
    events = [(k, COPY.sub("", o), int(s), msg) for k, o, s, msg in events]
    m = re.search(r"packets in (\d+) .*out (\d+) .*dropped (\d+)", p.stdout)
    if not m:
        raise SystemExit("equiv_run.py: %s: no summary in the output of obi run:\n%s" % (a.name, p.stdout))
    counts = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) >= 3 and line.startswith("  "):
            c = re.search(r"count=(\[[^\]]*\]|\d+)", line)
            if c:
                counts[f[0]] = sum(json.loads(c.group(1))) if c.group(1).startswith("[") else int(c.group(1))
    pcaps = {dev: (read_pcap(path) if path and os.path.exists(path) else []) for dev, path in outs.items()}
    return {"summary": tuple(int(x) for x in m.groups()), "events": events, "counts": counts, "pcaps": pcaps}


def describe(rec):
    ts, data = rec
    return "ts %d.%06d, %d bytes" % (ts // 10**9, ts % 10**9 // 1000, len(data))


def compare_pcap(dev, naive, merged, strict, batch_of):
    """Returns (failure lines, info lines). batch_of: original timestamp -> input batch."""
    if naive == merged:
        return [], ["%s: %d packets, identical" % (dev, len(naive))]
    order_only = sorted(naive) == sorted(merged)
    if order_only and not strict:
        # run to completion: the packets of input batch k all leave before batch k+1 is read,
        # so the two files must list the same batches in the same order
        bn = [batch_of.get(ts) for ts, _ in naive]
        bm = [batch_of.get(ts) for ts, _ in merged]
        if None not in bn and bn == bm:
            moved = sum(1 for x, y in zip(naive, merged) if x != y)
            return [], ["%s: %d packets, the same packets batch by batch; %d positions differ inside "
                        "%d-packet input batches (each classifier output leaves as one sub-batch)"
                        % (dev, len(naive), moved, BATCH)]
    fail = ["%s: output differs (naive %d packets, merged %d)" % (dev, len(naive), len(merged))]
    if order_only:
        i = next(k for k, (x, y) in enumerate(zip(naive, merged)) if x != y)
        fail.append("  same packets but in another order; first difference at record %d: naive %s, merged %s"
                    % (i, describe(naive[i]), describe(merged[i])))
        return fail, []
    ts_n = collections.Counter(ts for ts, _ in naive)
    if any(c > 1 for c in ts_n.values()):
        fail.append("  (timestamps are not unique: input order cannot be recovered)")
    bn, bm = dict(naive), dict(merged)
    only_n = sorted(set(bn) - set(bm))
    only_m = sorted(set(bm) - set(bn))
    changed = sorted(t for t in set(bn) & set(bm) if bn[t] != bm[t])
    fail.append("  only in naive: %d, only in merged: %d, different bytes: %d" % (len(only_n), len(only_m), len(changed)))
    for label, ts_list in (("only in naive", only_n), ("only in merged", only_m)):
        for t in ts_list[:3]:
            fail.append("    %s: %s" % (label, describe((t, bn.get(t, bm.get(t))))))
    for t in changed[:3]:
        x, y = bn[t], bm[t]
        off = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), min(len(x), len(y)))
        fail.append("    %s: first differing byte at offset %d (naive %s, merged %s)"
                    % (describe((t, x)), off, x[off:off + 8].hex(), y[off:off + 8].hex()))
    return fail, []


def compare_events(naive, merged, strict):
    if naive == merged:
        return [], ["events: %d, identical sequence" % len(naive)]
    cn, cm = collections.Counter(naive), collections.Counter(merged)
    if cn == cm and not strict:
        return [], ["events: %d, same alerts and logs (order differs within batches)" % len(naive)]
    fail = ["events differ (naive %d, merged %d)" % (len(naive), len(merged))]
    if cn == cm:
        i = next(k for k, (x, y) in enumerate(zip(naive, merged)) if x != y)
        fail.append("  same multiset, first difference at event %d: naive %s, merged %s" % (i, naive[i], merged[i]))
    for e in sorted(set(cn) | set(cm)):
        if cn[e] != cm[e]:
            fail.append("  %s [%s] severity %d: %s -- naive %d, merged %d" % (e[0], e[1], e[2], e[3][:60], cn[e], cm[e]))
    return fail[:25], []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--obi", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--naive", required=True)
    ap.add_argument("--merged", required=True)
    ap.add_argument("--pcap", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--in", dest="input", default="eth0")
    ap.add_argument("--out", action="append")
    ap.add_argument("--timing", action="store_true")
    ap.add_argument("--expect-event", action="append", default=[])
    ap.add_argument("--expect-block", action="append", default=[])
    a = ap.parse_args()
    a.out = a.out or ["eth1"]
    a.pcap = os.path.abspath(a.pcap)
    os.makedirs(a.work, exist_ok=True)
    inputs = read_pcap(a.pcap)
    batch_of = {ts: k // BATCH for k, (ts, _) in enumerate(inputs)}
    if len(batch_of) != len(inputs):
        raise SystemExit("equiv_run.py: %s: timestamps are not unique: outputs cannot be matched to inputs" % a.pcap)
    attempts = 2 if a.timing else 1
    for attempt in range(attempts):
        n = run_variant(a, "naive", a.naive)
        m = run_variant(a, "merged", a.merged)
        fail, info = [], []
        if n["summary"] != m["summary"]:
            fail.append("packets in/out/dropped: naive %s, merged %s" % (n["summary"], m["summary"]))
        for dev in a.out:
            f, i = compare_pcap(dev, n["pcaps"][dev], m["pcaps"][dev], a.timing, batch_of)
            fail += f
            info += i
        f, i = compare_events(n["events"], m["events"], a.timing)
        fail += f
        info += i
        if not fail or attempt == attempts - 1:
            break
        print("%s: differences with paced input, running once more:\n  %s" % (a.name, "\n  ".join(fail)), file=sys.stderr)
    # the pcap must exercise what it is meant to, and the alert list must be complete
    origins = collections.Counter(o for _, o, _, _ in n["events"])
    for o in a.expect_event:
        hits = sum(c for k, c in origins.items() if k.startswith(o[:-1])) if o.endswith("*") else origins[o]
        if hits == 0:
            fail.append("the pcap does not exercise %s: no alert/log from it in the naive run" % o)
    for b in a.expect_block:
        if n["counts"].get(b, 0) == 0:
            fail.append("the pcap does not exercise %s: count 0 or missing in the naive run" % b)
    if len(n["events"]) >= EVENT_RING or len(m["events"]) >= EVENT_RING:
        fail.append("%d / %d events: at or over the OBI's %d-slot event ring, some may have been dropped "
                    "(obi run does not print events_dropped); use a smaller pcap"
                    % (len(n["events"]), len(m["events"]), EVENT_RING))
    pin, pout, pdrop = n["summary"]
    head = "%s: %d packets in, %d out, %d dropped; %d alert/log events from %d origins" % (
        a.name, pin, pout, pdrop, len(n["events"]), len(origins))
    if fail:
        print("FAIL " + head, file=sys.stderr)
        for line in fail:
            print("  " + line, file=sys.stderr)
        print("  outputs and graphs are in %s" % a.work, file=sys.stderr)
        sys.exit(1)
    print("ok   " + head)
    for line in info:
        print("       " + line)


if __name__ == "__main__":
    main()
