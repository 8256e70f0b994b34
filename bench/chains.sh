#!/usr/bin/env bash
# NF chains as in the OpenBox paper's Table 2, on one OBI worker: each network function
# alone, each chain as the naive concatenation (`./openbox merge --concat`, variant
# "chained") and as the merged graph (`merge --chain`, variant "merged"), all measured in
# one run with `obi bench --workers 1` (packets preloaded), interleaved per run; then, per
# merged graph, the time until it is live: merge time (in one JVM after warm-up), the OBI's
# compile time and its swap time under traffic.
#
#   bench/chains.sh [--seconds S] [--runs R] [--swaps K] [--no-swap]   (default 2 s, 5 runs, 5 swaps)
#
# Workloads (the real applications' graphs, made at run time under build/chains/bench from
# ../shared/data by bench/AppGraph.java, never stored in the repository):
#   firewall     apps/firewall, ClassBench fw-4560 (classbench.action=alert, default allow)
#   ips          apps/ips, snort-web.rules with snort-vars.conf                 http-trace.pcap
#   fw_fw_split  fw-4560 split evenly: firewall with rules 1-2280, then a second
#                firewall with rules 2281-4560                                    fw-4560.trace.pcap
#   fw_fw        firewall fw-4560, then a second with the first 4560 rules of
#                fw1-10000                                                        fw-4560.trace.pcap
#   fw_ips       firewall (fw-4560) then IPS                                      http-trace.pcap
#   4nf          obc/merge/examples/four-nf-chain (gateway FW, web cache,         crafted pcap + 90 %
#                department FW, L3 LB)                                            legitimate traffic
#   4nf_rules    the same graphs on the crafted pcap alone (every rule hit)       crafted pcap
# Every NF of a chain is also measured alone on the chain's trace (workload: the NF's name,
# variant "alone"; "firewall@http" is the fw-4560 firewall on the HTTP trace). Output terminals become Discard; obi
# bench replaces the input terminal by the replayed pcap. The OBI runs the applications'
# graphs as they write them (every IPS rule that runs is one the OBI compiles).
#
# Merged graphs whose classifiers are configured to fuse (one multi-result classification
# pass, HeaderClassifier key "fuse") are also measured without the key (variant
# "merged_nofuse", the classifiers in sequence), which an OBI without fusion runs too.
# stdout, JSON lines: one per workload and variant (medians over the runs, mpps spread),
# then one per chain ("ratio": "merged/chained"): the median over the runs of merged /
# chained throughput ("mpps") and of chained / merged ns per packet ("ns_p50"), merged /
# each NF alone ("merged_vs_alone"; "two_obi_estimate": 2 x merged / slowest NF alone, the
# paper's merged-on-two-OBIs vs NFs-in-series gain), the merge figures (merge_ms: GraphMerger.merge, median
# wall time after warm-up; merge_cli_ms: the whole `merge --chain` in-process), obi_compile_ms
# (obi bench's compile of the merged graph), swap_ms / swap_first_ms (control_bench: POST of
# SetProcessingGraph -> response, alternating the graph and its header rules reversed while
# traffic runs / the first install; swap_obi_live_ms and its parts swap_obi_parse_ms,
# swap_obi_compile_ms, ...: the OBI's own figures, request received -> every worker
# runs the new graph; settled_swap_ms, settled_swap_obi_*_ms: the same with a second between
# swaps, so that each finds the OBI settled, as one reload does), the merge report and
# the merged graph's classifiers (and whether one is configured to fuse). stderr: progress
# and a table. Every single measurement is kept in build/chains/bench/raw.jsonl.
# OBI: the obi binary (default build/obi/obi); CONTROL_BENCH (default next to it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${OPENBOX_DATA:-$ROOT/../shared/data}"
SECS=2
RUNS=5
SWAPS=5
SWAP=1
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --swaps) SWAPS="$2"; shift 2 ;;
    --no-swap) SWAP=0; shift ;;
    --json) shift ;;   # output is always JSON lines
    -h|--help) sed -n '2,45p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "chains.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
say() { echo "chains.sh: $*" >&2; }

OBI="${OBI:-$ROOT/build/obi/obi}"
if [ ! -x "$OBI" ]; then
  cmake -S "$ROOT/obi" -B "$ROOT/build/obi" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$ROOT/build/obi" --target obi -j2 >/dev/null
fi
CONTROL_BENCH="${CONTROL_BENCH:-$(dirname "$OBI")/control_bench}"
for d in obc/merge/target/classes obc/merge/target/lib obc/api/target/classes apps/firewall/target/classes \
         apps/ips/target/classes; do
  if [ ! -d "$ROOT/$d" ]; then
    (cd "$ROOT" && mvn -B -q -pl obc/merge,apps/firewall,apps/ips -am install -DskipTests) >&2
    break
  fi
done
MCP="$ROOT/obc/merge/target/classes:$ROOT/obc/merge/target/lib/*"
ACP="$ROOT/apps/firewall/target/classes:$ROOT/apps/ips/target/classes:$ROOT/obc/api/target/classes:$MCP"
# The Java classes may be rebuilt by a concurrent build: wait for them for a while.
for i in $(seq 60); do
  [ -f "$ROOT/obc/merge/target/classes/org/openbox/merge/cli/MergeCli.class" ] \
    && [ -d "$ROOT/apps/firewall/target/classes/org" ] && [ -d "$ROOT/apps/ips/target/classes/org" ] && break
  [ "$i" = 1 ] && say "waiting for the Java classes (obc/merge, apps) to be built"
  sleep 5
done
merge() { java -cp "$MCP" org.openbox.merge.cli.MergeCli "$@"; }
tool() { python3 "$ROOT/bench/chains_tool.py" "$@"; }

OUT="$ROOT/build/chains/bench"
NF="$OUT/nf"
rm -rf "$OUT"
mkdir -p "$NF"
T="$ROOT/tests/system"
FW_PCAP="$DATA/fw-4560.trace.pcap"
HTTP_PCAP="$DATA/pcap/generated/http-trace.pcap"
EX="$ROOT/obc/merge/examples/four-nf-chain"
python3 "$T/equiv_pcap.py" "$OUT/crafted.pcap"
python3 "$T/equiv_pcap.py" "$OUT/mostly-clean.pcap" --mostly-clean

# ---- the applications' graphs
tool subset "$DATA/fw-4560.classbench" "$NF/fw-4560-first.classbench" 0 2280
tool subset "$DATA/fw-4560.classbench" "$NF/fw-4560-last.classbench" 2280 2280
tool subset "$DATA/fw1-10000.classbench" "$NF/fw1-10000-4560.classbench" 0 4560
fw_props() {   # fw_props RULES OUT
  printf 'rules.format = classbench\nrules.file = %s\nclassbench.action = alert\ndefault.action = allow\n' "$1" > "$2"
}
fw_props "$DATA/fw-4560.classbench" "$NF/firewall.properties"
fw_props "$NF/fw-4560-first.classbench" "$NF/fw_first.properties"
fw_props "$NF/fw-4560-last.classbench" "$NF/fw_last.properties"
fw_props "$NF/fw1-10000-4560.classbench" "$NF/fw1.properties"
{
  printf 'rules.file = %s\n' "$DATA/snort-web.rules"
  [ -f "$DATA/snort-vars.conf" ] && printf 'variables.file = %s\n' "$DATA/snort-vars.conf"
  true
} > "$NF/ips.properties"
FWC=org.openbox.apps.firewall.FirewallApp
java -cp "$ACP" "$ROOT/bench/AppGraph.java" \
  $FWC "$NF/firewall.properties" "$NF/firewall.json" \
  $FWC "$NF/fw_first.properties" "$NF/fw_first.json" \
  $FWC "$NF/fw_last.properties" "$NF/fw_last.json" \
  $FWC "$NF/fw1.properties" "$NF/fw1.json" \
  org.openbox.apps.ips.IpsApp "$NF/ips.properties" "$NF/ips.json" \
  > "$OUT/apps.jsonl" 2> "$OUT/apps.log"
say "$(python3 - "$OUT/apps.jsonl" <<'PY'
import json, sys
apps = [json.loads(l) for l in open(sys.argv[1])]
print("application graphs: " + "; ".join(
    "%s %d blocks" % (a["out"].rsplit("/", 1)[-1].replace(".json", ""), a["blocks"]) for a in apps))
PY
)"
for nf in firewall fw_first fw_last fw1 ips; do
  python3 "$T/equiv_terminals.py" "$NF/$nf.json" "$OUT/$nf.alone.json" --discard-outputs
done
i=0
for f in "$EX"/*.json; do
  i=$((i + 1))
  python3 "$T/equiv_terminals.py" "$f" "$OUT/4nf_$i.alone.json" --discard-outputs
done

# ---- chains: naive concatenation and merge, reports kept
pair() {   # pair NAME G1 G2 ...
  local name=$1; shift
  merge --concat "$@" -o "$OUT/$name.chained.raw.json" 2>"$OUT/$name.concat.txt"
  merge --chain "$@" -o "$OUT/$name.merged.raw.json" 2>"$OUT/$name.merge.txt"
  python3 "$T/equiv_terminals.py" "$OUT/$name.chained.raw.json" "$OUT/$name.chained.json" --discard-outputs
  python3 "$T/equiv_terminals.py" "$OUT/$name.merged.raw.json" "$OUT/$name.merged.json" --discard-outputs
  if tool strip-fuse "$OUT/$name.merged.json" "$OUT/$name.merged_nofuse.json"; then
    FUSED="$FUSED $name"
  else
    rm -f "$OUT/$name.merged_nofuse.json"
  fi
  say "$name: $(sed -n 's/^after: *//p' "$OUT/$name.concat.txt") chained," \
      "$(sed -n 's/^after: *//p' "$OUT/$name.merge.txt") merged"
}
FUSED=""
pair fw_fw_split "$NF/fw_first.json" "$NF/fw_last.json"
pair fw_fw "$NF/firewall.json" "$NF/fw1.json"
pair fw_ips "$NF/firewall.json" "$NF/ips.json"
pair 4nf "$EX"/*.json

# ---- what each workload is made of: META lines {workload, nfs, chained/merged pcaps}
META="$OUT/meta.jsonl"
: > "$META"
meta() { echo "$1" >> "$META"; }
meta '{"workload":"firewall","nfs":[]}'
meta '{"workload":"ips","nfs":[]}'
meta '{"workload":"fw_fw_split","nfs":["fw_first","fw_last"]}'
meta '{"workload":"fw_fw","nfs":["firewall","fw1"]}'
meta '{"workload":"fw_ips","nfs":["firewall@http","ips"]}'
meta '{"workload":"4nf","nfs":["4nf_1","4nf_2","4nf_3","4nf_4"]}'
meta '{"workload":"4nf_rules","nfs":[]}'

# workload variant graph pcap: measured in this order in every run
CASES="firewall alone firewall.alone $FW_PCAP
ips alone ips.alone $HTTP_PCAP
fw_first alone fw_first.alone $FW_PCAP
fw_last alone fw_last.alone $FW_PCAP
fw_fw_split chained fw_fw_split.chained $FW_PCAP
fw_fw_split merged fw_fw_split.merged $FW_PCAP
fw1 alone fw1.alone $FW_PCAP
fw_fw chained fw_fw.chained $FW_PCAP
fw_fw merged fw_fw.merged $FW_PCAP
firewall@http alone firewall.alone $HTTP_PCAP
fw_ips chained fw_ips.chained $HTTP_PCAP
fw_ips merged fw_ips.merged $HTTP_PCAP
4nf_1 alone 4nf_1.alone $OUT/mostly-clean.pcap
4nf_2 alone 4nf_2.alone $OUT/mostly-clean.pcap
4nf_3 alone 4nf_3.alone $OUT/mostly-clean.pcap
4nf_4 alone 4nf_4.alone $OUT/mostly-clean.pcap
4nf chained 4nf.chained $OUT/mostly-clean.pcap
4nf merged 4nf.merged $OUT/mostly-clean.pcap
4nf_rules chained 4nf.chained $OUT/crafted.pcap
4nf_rules merged 4nf.merged $OUT/crafted.pcap"
# A merged graph with fused classifiers is also measured without the fusion (variant
# "merged_nofuse": the classifiers in sequence), right after the merged one.
for w in $FUSED; do
  CASES=$(echo "$CASES" | awk -v w="$w" '{print} $1 == w && $2 == "merged" {print w, "merged_nofuse", w ".merged_nofuse", $4}')
done
NCASES=$(echo "$CASES" | wc -l)

# ---- time until live of each merged graph: merge (one JVM, after warm-up), OBI swap
# 20 warm-up merges per graph: the controller merges on every reload, and the JIT needs
# about that many merges of a large graph before the figure settles (3 gave about twice it).
say "merge time (in-process, warmed up)"
join() { local IFS=,; echo "$*"; }
java -cp "$MCP" "$ROOT/bench/MergeTime.java" --runs 10 --warmup 20 \
  "fw_fw_split=$(join "$NF/fw_first.json" "$NF/fw_last.json")" \
  "fw_fw=$(join "$NF/firewall.json" "$NF/fw1.json")" \
  "fw_ips=$(join "$NF/firewall.json" "$NF/ips.json")" \
  "4nf=$(join "$EX"/*.json)" > "$OUT/merge_time.jsonl" 2> "$OUT/merge_time.log" \
  || say "merge timing failed (see $OUT/merge_time.log)"
while read -r l; do [ -n "$l" ] && meta "$l"; done < "$OUT/merge_time.jsonl"
for w in fw_fw_split fw_fw fw_ips 4nf; do
  python3 - "$w" "$OUT/$w.merge.txt" "$OUT/$w.concat.txt" "$OUT/$w.merged.raw.json" "$OUT/$w.chained.raw.json" \
      "$ROOT/bench/chains_tool.py" >> "$META" <<'PY'
import json, subprocess, sys
w, rep, crep, merged, chained, tool = sys.argv[1:]
info = lambda g: json.loads(subprocess.run([sys.executable, tool, "info", g], capture_output=True, text=True, check=True).stdout)
m, c = info(merged), info(chained)
print(json.dumps({"workload": w, "report": open(rep).read().strip().splitlines(),
                  "classifiers_merged": m["classifiers"], "classifiers_chained": c["classifiers"],
                  "fused": m["fused"], "blocks_merged": m["blocks"], "blocks_chained": c["blocks"]}))
PY
done
if [ "$SWAP" = 1 ] && [ -x "$CONTROL_BENCH" ]; then
  for spec in "fw_fw_split:$FW_PCAP" "fw_fw:$FW_PCAP" "fw_ips:$HTTP_PCAP" "4nf:$OUT/mostly-clean.pcap"; do
    w="${spec%%:*}"; pcap="${spec#*:}"
    say "$w: swap of the merged graph under traffic ($SWAPS swaps)"
    tool swap-graph "$OUT/$w.merged.raw.json" "$OUT/$w.swap.json"
    swap_graph=merged
    for try in merged merged_nofuse; do
      [ "$try" = merged ] || tool strip-fuse "$OUT/$w.swap.json" "$OUT/$w.swap.json" || break
      swap_graph=$try
      timeout 300 "$CONTROL_BENCH" --obi "$OBI" --firewall "$OUT/$w.swap.json" --module "" --swaps "$SWAPS" \
        --n 5 --pps 5000 --pcap "$pcap" > "$OUT/$w.swap.txt" 2>&1 || true
      grep -q '"SetProcessingGraph"' "$OUT/$w.swap.txt" && break
    done
    # The same graph again, each swap finding the OBI settled (the previous graph's rte_acl
    # build done): what one reload costs, where the swaps above come back to back.
    say "$w: settled swaps (one every second)"
    timeout 300 "$CONTROL_BENCH" --obi "$OBI" --firewall "$OUT/$w.swap.json" --module "" --swaps "$SWAPS" \
      --swap-gap-ms 1000 --n 5 --pps 5000 --pcap "$pcap" > "$OUT/$w.settled.txt" 2>&1 || true
    python3 - "$w" "$OUT/$w.swap.txt" "$OUT/$w.settled.txt" "$swap_graph" >> "$META" <<'PY'
import json, sys
w, path, settled, graph = sys.argv[1:]
def figures(path, prefix):
    for l in open(path):
        if l.startswith("{") and '"SetProcessingGraph"' in l:
            s = json.loads(l)
            return {prefix + "_ms": s["p50_ms"], prefix + "_ms_p99": s["p99_ms"],
                    prefix + "_zero_loss": s.get("zero_loss"),
                    **{prefix + "_" + k: v for k, v in s.items() if k.startswith("obi_") and k.endswith("_ms")}}, s
    return None, None
out, s = figures(path, "swap")
if out is None:
    print(json.dumps({"workload": w, "swap_error": open(path).read().strip()[-300:]}))
else:
    out.update({"workload": w, "swap_first_ms": s["first_install_ms"], "swap_graph": graph})
    settled_out, _ = figures(settled, "settled_swap")
    out.update(settled_out or {"settled_swap_error": open(settled).read().strip()[-300:]})
    print(json.dumps(out))
PY
  done
elif [ "$SWAP" = 1 ]; then
  say "no $CONTROL_BENCH: swap times skipped"
fi

# ---- throughput, one worker, every graph once per run
RAW="$OUT/raw.jsonl"
: > "$RAW"
say "$RUNS run(s) x $NCASES graphs x $SECS s on one worker; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq "$RUNS"); do
  while read -r workload variant graph pcap; do
    if line=$("$OBI" bench --graph "$OUT/$graph.json" --pcap "$pcap" --seconds "$SECS" --workers 1 --name "$graph" \
                --json 2>"$OUT/bench.err"); then
      echo "{\"workload\":\"$workload\",\"variant\":\"$variant\",\"run\":$run,\"bench\":$line}" >> "$RAW"
    else   # kept as an error line; the summary reports it
      python3 -c 'import json,sys; print(json.dumps({"workload": sys.argv[1], "variant": sys.argv[2], "run": int(sys.argv[3]),
                  "error": open(sys.argv[4]).read().strip()}))' "$workload" "$variant" "$run" "$OUT/bench.err" >> "$RAW"
      [ "$run" = 1 ] && say "$workload $variant: obi bench failed: $(head -c 300 "$OUT/bench.err")"
    fi
  done <<< "$CASES"
done
say "load average after the runs $(cut -d' ' -f1-3 /proc/loadavg)"

tool summary "$RAW" "$META"
