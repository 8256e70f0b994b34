#!/usr/bin/env bash
# Forwarding rates over real I/O (needs root): an OBI between two veth pairs, over AF_PACKET
# and over DPDK's af_packet poll-mode driver, fed by a second OBI replaying fw-4560's trace.
#
#   bench/io.sh [--repeat K] [--workers N]     (defaults: the trace 20 times, 1 worker)
#
# Namespaces of its own (iob<PID>-gen, -dut, -sink), removed on exit. One JSON line per
# graph (pass-through, 4560-rule firewall) and I/O path on stdout: packets offered by the
# generator, received and dropped at the OBI's input, forwarded to the sink, and rates over
# the generator's run time. Both OBIs and the kernel's veth work share the machine's cores,
# so the figures are for this machine as a whole, not for the OBI alone.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${OPENBOX_DATA:-$ROOT/../shared/data}"
OBI="${OBI:-$ROOT/build/obi/obi}"
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat|--workers) ARGS+=("$1" "$2"); shift 2 ;;
    --json) shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "io.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "io.sh: needs root (network namespaces)" >&2; exit 2; }
[ -x "$OBI" ] || { echo "io.sh: no OBI binary at $OBI (./openbox build)" >&2; exit 2; }
P="iob$$"
cleanup() { for n in gen dut sink; do ip netns del "$P-$n" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'exit 130' INT TERM
for n in gen dut sink; do
  ip netns add "$P-$n"
  ip netns exec "$P-$n" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$P-$n" link set lo up
done
ip -n "$P-gen" link add g0 type veth peer name i0 netns "$P-dut"
ip -n "$P-dut" link add o0 type veth peer name s0 netns "$P-sink"
for l in "gen g0" "dut i0" "dut o0" "sink s0"; do set -- $l; ip -n "$P-$1" link set "$2" up; done
python3 "$ROOT/bench/io.py" --obi "$OBI" --data "$DATA" --work "$ROOT/build/bench-io" --prefix "$P" "${ARGS[@]}"
