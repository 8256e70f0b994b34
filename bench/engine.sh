#!/usr/bin/env bash
# Engine benchmarks: `obi bench` on the pass-through, firewall (4560 ClassBench rules; also
# without its flow cache, and on the trace made into new flows), IPS (Snort web rules) and
# FW+IPS graphs, one JSON line per graph on stdout; then
# swap_bench: compile + swap of the firewall graph under traffic for 1000 / 2000 / 4560 /
# 10000 ClassBench rules, one JSON line ("bench":"compile_swap") per rule set.
#
#   bench/engine.sh [--seconds S] [--workers N] [--runs R] [--swap-runs K] [--no-swap]
#
# OBI: the obi binary (default: build/obi/obi, built if missing). The graphs are generated
# under build/bench-graphs from ../shared/data (never stored in the repository).
# With --runs R > 1 every graph is measured R times (one line per run). Every swap line
# reports median / min / max over K swaps (default 9); SWAP_BENCH: the swap_bench binary
# (default: next to OBI, built if missing).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${OPENBOX_DATA:-$ROOT/../shared/data}"
SECONDS_PER_GRAPH=5
WORKERS=1
RUNS=1
SWAP_RUNS=9
SWAP=1
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_PER_GRAPH="$2"; shift 2 ;;
    --workers) WORKERS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --swap-runs) SWAP_RUNS="$2"; shift 2 ;;
    --no-swap) SWAP=0; shift ;;
    --json) shift ;;   # output is always JSON lines
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "engine.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

OBI="${OBI:-$ROOT/build/obi/obi}"
if [ ! -x "$OBI" ]; then
  cmake -S "$ROOT/obi" -B "$ROOT/build/obi" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$ROOT/build/obi" --target obi -j2 >/dev/null
fi
GRAPHS="$ROOT/build/bench-graphs"
python3 "$ROOT/obi/bench/make_graphs.py" --data "$DATA" --out "$GRAPHS" 2>/dev/null

FW_PCAP="$DATA/fw-4560.trace.pcap"
HTTP_PCAP="$DATA/pcap/generated/http-trace.pcap"
NEW_FLOWS_PCAP="$GRAPHS/fw-4560.newflows.pcap"
# name:graph:pcap[:OBI_FLOW_CACHE]. The firewall also runs without its flow cache and on the
# trace made into new flows (no 5-tuple repeats: the cache's worst case).
for run in $(seq "$RUNS"); do
  for spec in "passthrough:passthrough:$FW_PCAP" "firewall:firewall:$FW_PCAP" \
              "firewall_nocache:firewall:$FW_PCAP:off" "firewall_newflows:firewall:$NEW_FLOWS_PCAP" \
              "firewall_newflows_nocache:firewall:$NEW_FLOWS_PCAP:off" \
              "ips:ips:$HTTP_PCAP" "fw_ips:fw_ips:$HTTP_PCAP"; do
    IFS=: read -r name graph pcap cache <<<"$spec"
    OBI_FLOW_CACHE="${cache:-${OBI_FLOW_CACHE:-}}" "$OBI" bench --graph "$GRAPHS/$graph.json" --pcap "$pcap" \
      --seconds "$SECONDS_PER_GRAPH" --workers "$WORKERS" --name "$name" --json
  done
done

if [ "$SWAP" = 1 ]; then
  SWAP_BENCH="${SWAP_BENCH:-$(dirname "$OBI")/swap_bench}"
  if [ ! -x "$SWAP_BENCH" ]; then
    cmake --build "$(dirname "$SWAP_BENCH")" --target swap_bench -j2 >/dev/null
  fi
  "$SWAP_BENCH" --data "$DATA" --runs "$SWAP_RUNS" --workers "$WORKERS"
fi
