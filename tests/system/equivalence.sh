#!/usr/bin/env bash
# Equivalence on real traffic: the OBI runs the naive chain (`merge --concat`) and the
# merged graph (`merge --chain`) of the same network functions on the same pcap, one
# worker; output pcaps and alert/log lists must be the same (tests/system/equiv_run.py
# says exactly how: byte-identical files, or the same packets batch by batch when only
# the interleaving inside one 32-packet input batch differs). Cases:
#   four-nf-chain   the worked 4-NF example (gateway firewall, web cache, department
#                   firewall, L3 load balancer) on a crafted pcap that hits every rule
#                   (tests/system/equiv_pcap.py, shuffled so batches mix all paths)
#   firewall-ips    the worked FW + IPS example on the same crafted pcap
#   fw-ips-real     FW (4,560 ClassBench rules + 2 site rules; drop / alert / allow) +
#                   IPS (Snort web rules) on pcap/generated/http-trace.pcap (20,000
#                   packets, 200 planted attacks), full speed
#   4nf-http        the 4-NF example on http-trace.pcap, full speed
# Needs: build/obi/obi (or $OBI), the Java modules built, ../shared/data (or $OPENBOX_DATA).
# Work files go to build/chains/equivalence (kept after a failure for inspection).
# EQUIV_PACED=1: the crafted cases run paced (packets one by one) and must give
# byte-identical files and the identical alert sequence (for a quiet machine).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/system"
DATA="${OPENBOX_DATA:-$ROOT/../shared/data}"
OBI="${OBI:-$ROOT/build/obi/obi}"
WORK="${EQUIV_WORK:-$ROOT/build/chains/equivalence}"
EX="$ROOT/obc/merge/examples"
HTTP="$DATA/pcap/generated/http-trace.pcap"

die() { echo "equivalence: $*" >&2; exit 1; }
[ -x "$OBI" ] || die "no OBI binary at $OBI (build it: ./openbox build, or set OBI)"
[ -f "$HTTP" ] || die "missing $HTTP (shared data; set OPENBOX_DATA)"
if [ ! -d "$ROOT/obc/merge/target/classes" ] || [ ! -d "$ROOT/obc/merge/target/lib" ]; then
  (cd "$ROOT" && mvn -B -q -pl obc/merge -am install -DskipTests) || die "cannot build obc/merge"
fi
merge() { java -cp "$ROOT/obc/merge/target/classes:$ROOT/obc/merge/target/lib/*" org.openbox.merge.cli.MergeCli "$@"; }

rm -rf "$WORK"
mkdir -p "$WORK"
start=$(date +%s)
python3 "$HERE/equiv_pcap.py" "$WORK/crafted.pcap"
python3 "$HERE/equiv_graphs.py" --data "$DATA" --out "$WORK/graphs" 2>/dev/null

# naive and merged graph of a chain: build_pair NAME G1.json G2.json ...
build_pair() {
  local name=$1; shift
  merge --concat "$@" -o "$WORK/$name.naive.json" 2>"$WORK/$name.concat.txt" || { cat "$WORK/$name.concat.txt" >&2; die "concat of $name failed"; }
  merge --chain "$@" -o "$WORK/$name.merged.json" 2>"$WORK/$name.merge.txt" || { cat "$WORK/$name.merge.txt" >&2; die "merge of $name failed"; }
}
build_pair four-nf-chain "$EX"/four-nf-chain/*.json
build_pair firewall-ips "$EX/firewall-ips/firewall.json" "$EX/firewall-ips/ips.json"
build_pair fw-ips-real "$WORK/graphs/firewall.json" "$WORK/graphs/ips.json"

# the merge must really have merged the examples (else the test compares a graph with itself)
grep -q "combined [1-9]" "$WORK/four-nf-chain.merge.txt" || die "the 4-NF chain merge combined nothing: $(cat "$WORK/four-nf-chain.merge.txt")"
grep -q "combined [1-9]" "$WORK/firewall-ips.merge.txt" || die "the FW + IPS merge combined nothing: $(cat "$WORK/firewall-ips.merge.txt")"

failed=0
PACED=()
[ "${EQUIV_PACED:-0}" = 1 ] && PACED=(--timing)
check() { python3 "$HERE/equiv_run.py" --obi "$OBI" --work "$WORK/runs" "$@" || failed=1; }
N4=(--expect-event 1-gateway-firewall.telnet_alert --expect-event 2-web-cache.cache_hit
    --expect-event 3-department-firewall.remote_shell --expect-block 1-gateway-firewall.drop
    --expect-block 3-department-firewall.drop --expect-block 4-l3-load-balancer.expired
    --expect-block 4-l3-load-balancer.ttl)
check --name four-nf-chain --naive "$WORK/four-nf-chain.naive.json" --merged "$WORK/four-nf-chain.merged.json" \
  --pcap "$WORK/crafted.pcap" "${PACED[@]}" "${N4[@]}"
check --name firewall-ips --naive "$WORK/firewall-ips.naive.json" --merged "$WORK/firewall-ips.merged.json" \
  --pcap "$WORK/crafted.pcap" "${PACED[@]}" --expect-event firewall.blocked_net --expect-event ips.sqli \
  --expect-event ips.traversal --expect-block ips.drop
check --name fw-ips-real --naive "$WORK/fw-ips-real.naive.json" --merged "$WORK/fw-ips-real.merged.json" \
  --pcap "$HTTP" --expect-event firewall.watched --expect-event "ips.sid_*" --expect-block firewall.drop --expect-block ips.drop
check --name 4nf-http --naive "$WORK/four-nf-chain.naive.json" --merged "$WORK/four-nf-chain.merged.json" \
  --pcap "$HTTP" --expect-event 2-web-cache.cache_hit

echo "equivalence: $(( $(date +%s) - start )) s"
[ $failed -eq 0 ] || die "naive and merged graphs differ (see above; files in $WORK)"
echo "equivalence: naive chains and merged graphs agree on every case"
