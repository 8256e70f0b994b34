#!/usr/bin/env bash
# NF chains: each network function alone, and chains of them as the naive concatenation
# (`./openbox merge --concat`, variant "chained") vs the merged graph (`--chain`, variant
# "merged"), measured in one run with `obi bench` (one worker, packets preloaded).
#
#   bench/chains.sh [--seconds S] [--runs R]      (default 2 s, 5 runs)
#
# Workloads (graphs from ../shared/data by tests/system/equiv_graphs.py, under
# build/chains/bench, never stored in the repository):
#   firewall   4,562-rule firewall (ClassBench fw-4560 + 2 site rules)   fw-4560.trace.pcap
#   ips        Snort web rules (one regex per rule, alert + drop)        http-trace.pcap
#   fw_fw      firewall -> firewall (a second instance)                  fw-4560.trace.pcap
#   fw_ips     firewall -> IPS                                           http-trace.pcap
#   4nf        obc/merge/examples/four-nf-chain (gateway FW, web cache,  crafted pcap, mostly
#              department FW, L3 LB), naive vs merged                    legitimate traffic (90%)
#   4nf_rules  the same graphs on the crafted pcap alone (every rule     crafted pcap
#              hit, 35% of the packets alert, log or are dropped)        (tests/system/equiv_pcap.py)
# Output terminals become Discard; obi bench replaces the input terminal by the replayed
# pcap. Each run measures every graph once, chained and merged back to back; stdout gets
# one JSON line per workload and variant with the medians over the runs (and the spread
# of mpps), then one ratio line per workload: the median over the runs of merged/chained
# throughput ("mpps") and of chained/merged per-packet time ("ns_p50": the time of a
# batch through the graph divided by its packets, less sensitive to the other processes
# of a shared machine than wall-clock throughput); for fw_ips also merged vs ips alone.
# Every single measurement is kept in build/chains/bench/raw.jsonl.
# OBI: the obi binary (default build/obi/obi, built if missing).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${OPENBOX_DATA:-$ROOT/../shared/data}"
SECS=2
RUNS=5
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --json) shift ;;   # output is always JSON lines
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "chains.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

OBI="${OBI:-$ROOT/build/obi/obi}"
if [ ! -x "$OBI" ]; then
  cmake -S "$ROOT/obi" -B "$ROOT/build/obi" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$ROOT/build/obi" --target obi -j2 >/dev/null
fi
if [ ! -d "$ROOT/obc/merge/target/classes" ] || [ ! -d "$ROOT/obc/merge/target/lib" ]; then
  (cd "$ROOT" && mvn -B -q -pl obc/merge -am install -DskipTests) >&2
fi
merge() { java -cp "$ROOT/obc/merge/target/classes:$ROOT/obc/merge/target/lib/*" org.openbox.merge.cli.MergeCli "$@"; }

OUT="$ROOT/build/chains/bench"
mkdir -p "$OUT"
T="$ROOT/tests/system"
python3 "$T/equiv_graphs.py" --data "$DATA" --out "$OUT/nf" 2>/dev/null
python3 "$T/equiv_pcap.py" "$OUT/crafted.pcap"
python3 "$T/equiv_pcap.py" "$OUT/mostly-clean.pcap" --mostly-clean
FW_PCAP="$DATA/fw-4560.trace.pcap"
HTTP_PCAP="$DATA/pcap/generated/http-trace.pcap"
EX="$ROOT/obc/merge/examples/four-nf-chain"

discard() { python3 "$T/equiv_terminals.py" "$1" "$2" --discard-outputs; }
discard "$OUT/nf/firewall.json" "$OUT/firewall.alone.json"
discard "$OUT/nf/ips.json" "$OUT/ips.alone.json"
pair() {   # pair NAME G1 G2 ...: NAME.chained.json and NAME.merged.json, merge report kept
  local name=$1; shift
  merge --concat "$@" -o "$OUT/$name.chained.raw.json" 2>"$OUT/$name.concat.txt"
  merge --chain "$@" -o "$OUT/$name.merged.raw.json" 2>"$OUT/$name.merge.txt"
  discard "$OUT/$name.chained.raw.json" "$OUT/$name.chained.json"
  discard "$OUT/$name.merged.raw.json" "$OUT/$name.merged.json"
  echo "chains.sh: $name: $(sed -n 's/^after: *//p' "$OUT/$name.concat.txt") chained," \
       "$(sed -n 's/^after: *//p' "$OUT/$name.merge.txt") merged" >&2
}
pair fw_fw "$OUT/nf/firewall.json" "$OUT/nf/firewall2.json"
pair fw_ips "$OUT/nf/firewall.json" "$OUT/nf/ips.json"
pair 4nf "$EX"/*.json

# workload variant graph pcap
CASES="firewall alone firewall.alone $FW_PCAP
ips alone ips.alone $HTTP_PCAP
fw_fw chained fw_fw.chained $FW_PCAP
fw_fw merged fw_fw.merged $FW_PCAP
fw_ips chained fw_ips.chained $HTTP_PCAP
fw_ips merged fw_ips.merged $HTTP_PCAP
4nf chained 4nf.chained $OUT/mostly-clean.pcap
4nf merged 4nf.merged $OUT/mostly-clean.pcap
4nf_rules chained 4nf.chained $OUT/crafted.pcap
4nf_rules merged 4nf.merged $OUT/crafted.pcap"

RAW="$OUT/raw.jsonl"
: > "$RAW"
echo "chains.sh: $RUNS run(s) x 10 graphs x $SECS s on one worker; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for run in $(seq "$RUNS"); do
  while read -r workload variant graph pcap; do
    line=$("$OBI" bench --graph "$OUT/$graph.json" --pcap "$pcap" --seconds "$SECS" --workers 1 --name "$graph" --json)
    echo "{\"workload\":\"$workload\",\"variant\":\"$variant\",\"run\":$run,\"bench\":$line}" >> "$RAW"
  done <<< "$CASES"
done
echo "chains.sh: load average after the runs $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$RAW" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
order, by = [], {}
for r in rows:
    k = (r["workload"], r["variant"])
    if k not in by:
        order.append(k)
        by[k] = {}
    by[k][r["run"]] = r["bench"]
med = lambda xs: round(statistics.median(xs), 3)
summary = {}
for k in order:
    b = list(by[k].values())
    line = {"workload": k[0], "variant": k[1], "mpps": med([x["mpps"] for x in b]), "gbps": med([x["gbps"] for x in b]),
            "ns_p50": med([x["ns_p50"] for x in b]), "ns_p99": med([x["ns_p99"] for x in b]),
            "mpps_min": min(x["mpps"] for x in b), "mpps_max": max(x["mpps"] for x in b),
            "rss_mb": max(x["rss_mb"] for x in b), "compile_ms": med([x["compile_ms"] for x in b]), "runs": len(b)}
    summary[k] = line
    print(json.dumps(line))


def ratio(a, b):
    """Medians over the runs of a/b throughput (mpps) and b/a per-packet time (ns_p50), back to back."""
    runs = sorted(set(by[a]) & set(by[b]))
    return (med([by[a][r]["mpps"] / by[b][r]["mpps"] for r in runs]),
            med([by[b][r]["ns_p50"] / by[a][r]["ns_p50"] for r in runs]))


for w in dict.fromkeys(k[0] for k in order):
    if (w, "merged") in summary and (w, "chained") in summary:
        m, p = ratio((w, "merged"), (w, "chained"))
        r = {"workload": w, "ratio": "merged/chained", "mpps": m, "ns_p50": p}
        if w == "fw_ips" and ("ips", "alone") in summary:
            r["merged_vs_ips_alone"] = dict(zip(("mpps", "ns_p50"), ratio((w, "merged"), ("ips", "alone"))))
        print(json.dumps(r))
PY
