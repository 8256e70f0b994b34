#!/usr/bin/env bash
# TCP, UDP and ICMP through an OBI on veth with the interfaces' default offloads (needs root).
#
#   tests/system/offload.sh
#
# Three namespaces of its own (obo<PID>-a, -obi, -b) joined by two veth pairs:
#   a: a0 10.78.0.1 ==== oa [ obi: build/obi/obi run, FromDevice/ToDevice ] ob ==== b0 10.78.0.2 :b
# Nothing is changed on the veths: checksum offload and TSO/GSO stay on, as containers and
# most labs have them, so the OBI receives partial checksums and 64 KiB super-frames.
# For each of three graphs (pass-through, a firewall dropping TCP port 9999, source NAT
# to 10.78.0.9) the client downloads 4 MiB over HTTP and uploads 4 MiB over TCP (both
# byte-compared), echoes 200 UDP datagrams and 20 ICMP echoes; the OBI must report the
# frames it finished (FromDevice offloads) and no drops. The namespaces are removed on
# exit (also on failure).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OBI="${OBI:-$ROOT/build/obi/obi}"
case "${1:-}" in -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
die() { echo "offload: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces and AF_PACKET sockets)"
[ -x "$OBI" ] || die "no OBI binary at $OBI (build it: ./openbox build, or set OBI)"

P="obo$$"
WORK="$ROOT/build/systest/offload"
rm -rf "$WORK"; mkdir -p "$WORK"
cleanup() { for n in a obi b; do ip netns del "$P-$n" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'exit 130' INT TERM

for n in a obi b; do
  ip netns add "$P-$n"
  ip netns exec "$P-$n" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$P-$n" link set lo up
done
ip -n "$P-a" link add a0 type veth peer name oa netns "$P-obi"
ip -n "$P-b" link add b0 type veth peer name ob netns "$P-obi"
ip -n "$P-a" addr add 10.78.0.1/24 dev a0
ip -n "$P-b" addr add 10.78.0.2/24 dev b0
for l in "a a0" "obi oa" "obi ob" "b b0"; do set -- $l; ip -n "$P-$1" link set "$2" up; done
# the NAT case: the server reaches the translated address 10.78.0.9 at the client's MAC
ip -n "$P-b" neigh add 10.78.0.9 lladdr "$(ip netns exec "$P-a" cat /sys/class/net/a0/address)" dev b0 nud permanent
echo "offload: the veths keep the offloads the kernel gave them (checksum, TSO/GSO)" >&2

status=0
python3 "$ROOT/tests/system/offload.py" --obi "$OBI" --ns-client "$P-a" --ns-obi "$P-obi" --ns-server "$P-b" \
  --work "$WORK" || status=$?
if [ "$status" = 0 ]; then echo "offload: PASS" >&2; else echo "offload: FAIL (logs in $WORK)" >&2; fi
exit "$status"
