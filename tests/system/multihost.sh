#!/usr/bin/env bash
# Multi-host system test: the controller and two OBIs on separate "hosts" (Linux network
# namespaces), a sender and a receiver, veth links and a control bridge. Checks delivery,
# firewall drops, IPS alerts reaching only the IPS app, InstanceDown when an OBI is killed
# while traffic keeps flowing through the other, and the graph pushed again on restart.
# The checks themselves are in lib/multihost.py; this script builds the topology and
# always removes it again (trap), also on failure or Ctrl-C.
#
# Topology (P = obx<pid>; every name below lives only inside P-* namespaces):
#
#                       P-ctl: controller 10.99.0.1:3637 on bridge br0
#                        c-obi1 |                          | c-obi2
#                  ctl0 10.99.0.11                     ctl0 10.99.0.12
#   P-snd  snd1 ------ in1 [ P-obi1: OBI dpid 1 ] out1 ------ rcv1  P-rcv
#          snd2 ------ in2 [ P-obi2: OBI dpid 2 ] out2 ------ rcv2
#
# The data links carry no IP addresses: each OBI is a bump in the wire whose graph
# devices "in"/"out" are bound to its veths (--device-map in=inN,out=outN), and frames
# are written and counted with raw AF_PACKET sockets. IPv6 is off in every namespace so
# no stray frames appear. Nothing touches the root namespace or leaves the machine.
# The control channel is mutual TLS: a fresh CA and certificates in $OUT/pki (each OBI's
# with its control address, 10.99.0.1N, in its SAN), made with `openbox pki`.
#
# Needs root, iproute2, python3, java; builds the OBI and the controller when missing.
# Logs: build/systest/multihost/ (or $OBX_SYSTEST_OUT).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OBX_SYSTEST_OUT:-$ROOT/build/systest/multihost}"
P="obx$$"
HOSTS=(ctl obi1 obi2 snd rcv)

fail() { printf 'multihost: FAIL: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "must run as root (it creates network namespaces)"
for c in ip python3 java; do command -v "$c" >/dev/null || fail "'$c' is not installed"; done
if [ ! -x "$ROOT/build/obi/obi" ] || ! ls "$ROOT"/obc/server/target/openbox-controller-*.jar >/dev/null 2>&1; then
  echo "multihost: building (OBI or controller missing)"
  "$ROOT/openbox" build
fi

remove_hosts() { # prefix
  local n pid
  for n in "${HOSTS[@]}"; do
    [ -e "/var/run/netns/$1-$n" ] || continue
    # only processes this test started live in its namespaces
    for pid in $(ip netns pids "$1-$n" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$1-$n" 2>/dev/null || true
  done
}

# namespaces left behind by an earlier run of this test that was killed outright
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^obx[0-9]+-(ctl|obi1|obi2|snd|rcv)$' || true); do
  old="${ns%%-*}"
  kill -0 "${old#obx}" 2>/dev/null || remove_hosts "$old"
done

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  remove_hosts "$P"
  if [ "$rc" != 0 ]; then
    for f in controller obi-1 obi-2; do
      [ -f "$OUT/$f.log" ] || continue
      echo "---- last lines of $OUT/$f.log" >&2
      tail -n 15 "$OUT/$f.log" >&2
    done
    echo "multihost: FAILED (exit $rc); logs in $OUT" >&2
    grep -h 'FAIL:' "$OUT/driver.log" 2>/dev/null | tail -1 >&2 || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$OUT"; mkdir -p "$OUT"
echo "multihost: building the topology (namespaces $P-{$(IFS=,; echo "${HOSTS[*]}")})"
for n in "${HOSTS[@]}"; do
  ip netns add "$P-$n"
  ip netns exec "$P-$n" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$P-$n" link set lo up
done
ip -n "$P-ctl" link add br0 type bridge
ip -n "$P-ctl" addr add 10.99.0.1/24 dev br0
ip -n "$P-ctl" link set br0 up
for i in 1 2; do
  ip link add "c-obi$i" netns "$P-ctl" type veth peer name ctl0 netns "$P-obi$i"
  ip -n "$P-ctl" link set "c-obi$i" master br0 up
  ip -n "$P-obi$i" addr add "10.99.0.1$i/24" dev ctl0
  ip -n "$P-obi$i" link set ctl0 up
  ip link add "snd$i" netns "$P-snd" type veth peer name "in$i" netns "$P-obi$i"
  ip link add "out$i" netns "$P-obi$i" type veth peer name "rcv$i" netns "$P-rcv"
  ip -n "$P-snd" link set "snd$i" up
  ip -n "$P-obi$i" link set "in$i" up
  ip -n "$P-obi$i" link set "out$i" up
  ip -n "$P-rcv" link set "rcv$i" up
done

# bounded: the driver stops by itself; timeout only guards against a hang. Run in the
# background and waited for, so INT/TERM reach the trap at once.
(timeout -k 10 170 ip netns exec "$P-ctl" env OPENBOX_ROOT="$ROOT" OPENBOX_PKI="$OUT/pki" \
  python3 "$ROOT/tests/system/lib/multihost.py" --prefix "$P" --out "$OUT" 2>&1 | tee "$OUT/driver.log") &
wait $!
