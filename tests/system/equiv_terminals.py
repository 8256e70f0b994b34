#!/usr/bin/env python3
"""Rebinds the terminals of a processing graph file for offline runs.

  equiv_terminals.py IN.json OUT.json [--read DEV=FILE ...] [--write DEV=FILE ...]
                     [--timing] [--discard-outputs]

--read DEV=FILE     every FromDevice with devname DEV becomes FromDump of FILE
--write DEV=FILE    every ToDevice with devname DEV becomes ToDump to FILE
--timing            FromDump keeps the capture's inter-packet delays (the OBI then
                    takes packets one at a time when they are spaced widely enough)
--discard-outputs   every remaining ToDevice / ToDump becomes a Discard (benchmarks)

A device named in --read / --write that no block uses is an error (a typo would
otherwise silently leave the terminal unbound).
"""
import argparse
import json
import sys


def pairs(items, flag):
    out = {}
    for it in items or []:
        dev, sep, path = it.partition("=")
        if not sep or not dev or not path:
            sys.exit("equiv_terminals.py: %s expects DEV=FILE, got '%s'" % (flag, it))
        out[dev] = path
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--read", action="append")
    ap.add_argument("--write", action="append")
    ap.add_argument("--timing", action="store_true")
    ap.add_argument("--discard-outputs", action="store_true")
    a = ap.parse_args()
    reads, writes = pairs(a.read, "--read"), pairs(a.write, "--write")
    g = json.load(open(a.src))
    used = set()
    for b in g["blocks"]:
        dev = (b.get("config") or {}).get("devname")
        if b["type"] == "FromDevice" and dev in reads:
            cfg = {"filename": reads[dev]}
            if a.timing:
                cfg["timing"] = True
            b["type"], b["config"] = "FromDump", cfg
            used.add(("read", dev))
        elif b["type"] == "ToDevice" and dev in writes:
            b["type"], b["config"] = "ToDump", {"filename": writes[dev]}
            used.add(("write", dev))
        elif b["type"] in ("ToDevice", "ToDump") and a.discard_outputs:
            b["type"], b["config"] = "Discard", {}
    missing = [("--read", d) for d in reads if ("read", d) not in used] + \
              [("--write", d) for d in writes if ("write", d) not in used]
    if missing:
        sys.exit("equiv_terminals.py: %s: no %s with devname %s" % (
            a.src, " / ".join("FromDevice" if f == "--read" else "ToDevice" for f, _ in missing),
            ", ".join(d for _, d in missing)))
    with open(a.dst, "w") as f:
        json.dump(g, f)


if __name__ == "__main__":
    main()
