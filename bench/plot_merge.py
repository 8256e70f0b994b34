#!/usr/bin/env python3
"""Plots `./openbox bench merge` output (JSON lines on stdin) as merge time against merged
graph size on log-log axes, with the fitted power law, to the PNG file given.

    bench/merge.sh | python3 bench/plot_merge.py bench/figures/merge-time.png

Needs matplotlib (pip install matplotlib); the benchmark itself does not.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: plot_merge.py OUT.png < bench-merge.jsonl")
    rows, fit = [], None
    for line in sys.stdin:
        line = line.strip()
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        if "connectors" in d:
            rows.append(d)
        elif "exponent" in d:
            fit = d["exponent"]
    if not rows:
        raise SystemExit("plot_merge.py: no benchmark rows on stdin")
    x = [r["connectors"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4), dpi=120)
    ax.loglog(x, [r["ms"] for r in rows], "o-", label="merge time (thread CPU)")
    if all("wall_ms" in r for r in rows):
        ax.loglog(x, [r["wall_ms"] for r in rows], "s--", alpha=0.6, label="wall clock")
    ax.axhline(50, color="grey", linestyle=":", label="target at 5000 connectors: 50 ms")
    ax.set_xlabel("connectors in the merged graph")
    ax.set_ylabel("ms")
    title = "Graph merge time vs merged graph size"
    if fit is not None:
        title += " (fitted exponent %.2f)" % fit
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[1])


if __name__ == "__main__":
    main()
