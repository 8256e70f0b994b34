#!/usr/bin/env bash
# An OBI forwarding between two DPDK net_memif ports, no NIC, no hugepages (needs root).
#
#   tests/system/memif.sh
#
#   iogen memif --tx A --rx B  ==A==>  [ obi run: FromDevice dpdk:0 -> ToDevice dpdk:1 ]  ==B==>  iogen
#
# The OBI (build/obi/obi, memif servers on the control sockets A and B, one worker) and
# iogen (build/obi/iogen, the memif clients, one thread sending fw-4560's real frames on A
# and receiving on B) run in a network namespace of their own (the memif sockets are
# abstract, so per namespace). Checks: at 50,000 frames/s for 1 s every frame comes back
# with the same bytes (counts, byte counts and an order-independent digest of every
# frame's bytes), and the OBI's own counters (FromDevice, ToDevice, packets in/out) say the
# same; as fast as iogen can for 1 s, every frame iogen sent reached the OBI (memif pushes
# back instead of dropping), and what came back is what the OBI sent less its ToDevice
# drops. The namespace is removed on exit (also on failure).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OBI="${OBI:-$ROOT/build/obi/obi}"
IOGEN="${IOGEN:-$(dirname "$OBI")/iogen}"
DATA="${OPENBOX_DATA:-$ROOT/../shared/data}"
case "${1:-}" in -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
die() { echo "memif: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (a network namespace of its own)"
[ -x "$OBI" ] || die "no OBI binary at $OBI (build it: ./openbox build, or set OBI)"
[ -x "$IOGEN" ] || die "no iogen at $IOGEN (./openbox build builds it with the OBI)"
TRACE="$DATA/fw-4560.trace.pcap"
[ -r "$TRACE" ] || die "no trace at $TRACE (OPENBOX_DATA)"

P="obm$$"
WORK="$ROOT/build/systest/memif"
rm -rf "$WORK"; mkdir -p "$WORK"
obi_pid=""
cleanup() {
  [ -n "$obi_pid" ] && kill -9 "$obi_pid" 2>/dev/null || true
  ip netns del "$P" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add "$P"
A="/run/$P-a.sock" B="/run/$P-b.sock"

cat > "$WORK/graph.json" <<EOF
{"blocks": [{"type": "FromDevice", "name": "in", "config": {"devname": "dpdk:0"}},
            {"type": "ToDevice", "name": "out", "config": {"devname": "dpdk:1"}}],
 "connectors": [{"src": "in", "src_port": 0, "dst": "out", "dst_port": 0}]}
EOF
EAL="--no-huge -m 512 --no-pci --no-shconf --no-telemetry --file-prefix $P --log-level *:error"
EAL+=" --vdev=net_memif0,id=0,role=server,socket=$A --vdev=net_memif1,id=0,role=server,socket=$B"

failures=0
check() {   # check WHAT 'STATEMENT; ...; CONDITION' (Python) over the results in $WORK
  if python3 - "$WORK" "$2" <<'PY'
import json, os, re, sys
work, expr = sys.argv[1], sys.argv[2]
def j(name):
    with open(os.path.join(work, name)) as f:
        return json.loads(f.read().strip().splitlines()[-1])
def summary(name):
    text = open(os.path.join(work, name)).read()
    m = re.search(r"packets in (\d+) \((\d+) bytes\), out (\d+) \((\d+) bytes\)", text)
    fd = re.search(r"^\s+in\s+FromDevice\s+count=(\d+)", text, re.M)
    td = re.search(r"^\s+out\s+ToDevice\s+count=(\d+) drops=(\d+)", text, re.M)
    if not (m and fd and td):
        sys.exit("no summary in " + name)
    return {"in": int(m.group(1)), "in_bytes": int(m.group(2)), "out": int(m.group(3)), "out_bytes": int(m.group(4)),
            "fd_count": int(fd.group(1)), "td_count": int(td.group(1)), "td_drops": int(td.group(2))}
env = {"j": j, "summary": summary}
*stmts, last = expr.split("; ")   # assignments, then the condition
for st in stmts:
    exec(st, env)
sys.exit(0 if eval(last, env) else 1)
PY
  then echo "memif: ok   $1" >&2
  else echo "memif: FAIL $1 ($2)" >&2; failures=$((failures + 1)); fi
}

run_obi() {   # run_obi LOG: the OBI in the background until its memif sockets listen
  ip netns exec "$P" "$OBI" run --graph "$WORK/graph.json" --workers 1 --dpdk "$EAL" > "$WORK/$1" 2>&1 &
  obi_pid=$!
  for _ in $(seq 1 300); do
    kill -0 "$obi_pid" 2>/dev/null || { cat "$WORK/$1" >&2; die "the OBI exited"; }
    n=$(ip netns exec "$P" cat /proc/net/unix | grep -cE " @?/run/$P-[ab].sock$" || true)
    [ "$n" -ge 2 ] && return 0
    sleep 0.1
  done
  die "the OBI did not open its memif sockets in 30 s (log: $WORK/$1)"
}
stop_obi() {
  kill -INT "$obi_pid"
  for _ in $(seq 1 300); do kill -0 "$obi_pid" 2>/dev/null || break; sleep 0.1; done
  wait "$obi_pid" || die "the OBI did not stop cleanly"
  obi_pid=""
}

# 1. a fixed rate: nothing may be lost, every byte comes back
run_obi obi-paced.log
ip netns exec "$P" "$IOGEN" memif --tx "$A" --rx "$B" --pcap "$TRACE" --rate 50000 --seconds 1 --verify \
  > "$WORK/paced.json" 2> "$WORK/paced.err" || { cat "$WORK/paced.err" >&2; die "iogen failed"; }
stop_obi
echo "memif: paced: $(cat "$WORK/paced.json")" >&2
check "more frames sent than the trace holds (45,607), so it wrapped" 'j("paced.json")["sent"] > 45607'
check "every frame came back" 'j("paced.json")["received"] == j("paced.json")["sent"]'
check "every byte came back" 'j("paced.json")["received_bytes"] == j("paced.json")["sent_bytes"]'
check "the frames' bytes are the same (digest)" 'j("paced.json")["received_digest"] == j("paced.json")["sent_digest"]'
check "the OBI read every frame sent (FromDevice count, packets in and their bytes)" \
  's = summary("obi-paced.log"); g = j("paced.json"); s["fd_count"] == s["in"] == g["sent"] and s["in_bytes"] == g["sent_bytes"]'
check "the OBI sent every frame (ToDevice count, packets out and their bytes), none dropped" \
  's = summary("obi-paced.log"); g = j("paced.json"); s["td_count"] == s["out"] == g["received"] and s["out_bytes"] == g["received_bytes"] and s["td_drops"] == 0'

# 2. as fast as the generator can: memif pushes back, so the OBI reads every frame sent
run_obi obi-full.log
ip netns exec "$P" "$IOGEN" memif --tx "$A" --rx "$B" --pcap "$TRACE" --seconds 1 \
  > "$WORK/full.json" 2> "$WORK/full.err" || { cat "$WORK/full.err" >&2; die "iogen failed"; }
stop_obi
echo "memif: full speed: $(cat "$WORK/full.json")" >&2
check "frames went both ways" 'j("full.json")["received"] > 0'
check "the OBI read every frame iogen sent" 's = summary("obi-full.log"); s["fd_count"] == j("full.json")["sent"]'
check "iogen received every frame the OBI sent; the OBI's input is what it sent plus its ToDevice drops" \
  's = summary("obi-full.log"); s["td_count"] == s["out"] == j("full.json")["received"] and s["fd_count"] == s["td_count"] + s["td_drops"]'

if [ "$failures" = 0 ]; then echo "memif: PASS" >&2; else echo "memif: FAIL ($failures checks; logs in $WORK)" >&2; exit 1; fi
