#!/usr/bin/env bash
# No frame lost at the OBI's interface across graph swaps (needs root: network namespaces).
#
#   tests/system/swap_loss.sh [--frames N] [--pps R] [--min-swaps K] [--workers W]
#                             (defaults 20000 frames at 5000/s, at least 200 swaps, 2 workers)
#
# Two namespaces of its own (h3-sl<PID>-obi, h3-sl<PID>-snd) joined by two veth pairs:
#   snd:h3s0 -> obi:h3s1   frames into the OBI (FromDevice "in")
#   obi:h3o1 -> snd:h3o0   what the OBI lets through (ToDevice "out")
# A real OBI (build/obi/obi or $OBI) runs in the obi namespace, driven by
# tests/system/swap_loss.py (the controller's side of the protocol on loopback there).
# A bounded sender sends numbered frames while graphs are swapped continuously, in two
# phases: FromDevice unchanged (carried with its socket and ring) and FromDevice config
# changing on every swap (the new one takes over the old one's rings). Then the kernel's
# rx_packets of h3s1 must equal the OBI's packets_in (and, unchanged, FromDevice's count),
# in = out + dropped, and every frame the rules pass must come out exactly once.
# Everything stays inside the two namespaces, which are removed on exit (also on failure).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/system"
OBI="${OBI:-$ROOT/build/obi/obi}"
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --frames|--pps|--min-swaps|--workers) ARGS+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "swap_loss: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
die() { echo "swap_loss: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces and AF_PACKET sockets)"
[ -x "$OBI" ] || die "no OBI binary at $OBI (build it: ./openbox build, or set OBI)"

P="h3-sl$$"
NS_OBI="$P-obi"
NS_SND="$P-snd"
WORK="$ROOT/build/systest/swap_loss"
mkdir -p "$WORK"
LOG="$WORK/obi.log"
: > "$LOG"
cleanup() {
  ip netns del "$NS_OBI" 2>/dev/null || true
  ip netns del "$NS_SND" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for ns in "$NS_OBI" "$NS_SND"; do
  ip netns add "$ns"
  ip netns exec "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$ns" link set lo up
done
ip -n "$NS_SND" link add h3s0 type veth peer name h3s1 netns "$NS_OBI"
ip -n "$NS_OBI" link add h3o1 type veth peer name h3o0 netns "$NS_SND"
for l in "$NS_SND h3s0" "$NS_SND h3o0" "$NS_OBI h3s1" "$NS_OBI h3o1"; do
  set -- $l
  ip netns exec "$1" sysctl -q -w "net.ipv6.conf.$2.disable_ipv6=1"
  ip -n "$1" link set "$2" up
done

status=0
ip netns exec "$NS_OBI" python3 "$HERE/swap_loss.py" --obi "$OBI" --sender-ns "$NS_SND" \
  --rx h3s1 --tx h3o1 --peer-rx h3s0 --peer-tx h3o0 --log "$LOG" "${ARGS[@]}" || status=$?
if [ "$status" = 0 ]; then
  echo "swap_loss: PASS" >&2
else
  echo "swap_loss: FAIL (OBI log: $LOG)" >&2
fi
exit "$status"
