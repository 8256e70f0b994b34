#!/usr/bin/env bash
# OBI-guest system test: the OBI in a virtual machine (obi/vm/build-guest.sh, booted by
# obi/vm/run-guest.sh with qemu) under a real controller. Checks Hello from the guest, the
# graph pushed and running, traffic and alerts through the guest's virtio data NICs,
# InstanceDown when qemu is killed and the graph pushed again when the guest boots again.
# The checks are in lib/kvm_guest.py; this script builds the topology and always removes
# it again (trap), also on failure or Ctrl-C; qemu lives in P-host and dies with it.
#
# Topology (P = obk<pid>; every name lives only inside P-* namespaces):
#
#   P-ctl: controller 10.98.0.1:3637 on ctl0
#            |
#   P-host:  h-ctl --[br-ctl]-- tap vm-ctl ==== ctl0 10.98.0.11   guest (qemu),
#   P-snd: snd0 -- h-in --[br-in]--- tap vm-in ===== in             OBI dpid 7,
#   P-rcv: rcv0 -- h-out --[br-out]-- tap vm-out ==== out            devices in/out
#
# KVM is used when it runs the guest (run-guest.sh --check-accel); otherwise qemu's CPU
# emulation (TCG), announced with a warning. The test is skipped (exit 0, "SKIP: why")
# only when no guest can be built or booted here: its Debian packages cannot be
# installed, or neither KVM nor TCG is available (KVM_GUEST_NO_TCG=1 forbids TCG).
#
# The control channel is mutual TLS: a fresh CA and certificates in $OUT/pki, made with
# `openbox pki`; the guest gets only its own certificate and key and the CA certificate
# (run-guest.sh --files), and --pki naming them (--obi-args).
#
# Needs root, iproute2, python3, java; OBI=PATH picks the OBI binary (default
# build/obi/obi). Logs and console logs: build/systest/kvm_guest/ (or $OBX_SYSTEST_OUT).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OBX_SYSTEST_OUT:-$ROOT/build/systest/kvm_guest}"
export OBI="${OBI:-$ROOT/build/obi/obi}"
P="obk$$"
HOSTS=(ctl host snd rcv)

fail() { printf 'kvm_guest: FAIL: %s\n' "$*" >&2; exit 1; }
skip() { printf 'kvm_guest: SKIP: %s\n' "$*"; exit 0; }

[ "$(id -u)" = 0 ] || fail "must run as root (it creates network namespaces and taps)"
for c in ip python3 java; do command -v "$c" >/dev/null || fail "'$c' is not installed"; done
if [ ! -x "$OBI" ] || ! ls "$ROOT"/obc/server/target/openbox-controller-*.jar >/dev/null 2>&1; then
  echo "kvm_guest: building (OBI or controller missing)"
  "$ROOT/openbox" build
fi

remove_hosts() { # prefix
  local n pid
  for n in "${HOSTS[@]}"; do
    [ -e "/var/run/netns/$1-$n" ] || continue
    # only processes this test started live in its namespaces (qemu in -host)
    for pid in $(ip netns pids "$1-$n" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$1-$n" 2>/dev/null || true
  done
}

# namespaces left behind by an earlier run that was killed outright
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^obk[0-9]+-(ctl|host|snd|rcv)$' || true); do
  old="${ns%%-*}"
  kill -0 "${old#obk}" 2>/dev/null || remove_hosts "$old"
done

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  remove_hosts "$P"
  if [ "$rc" != 0 ]; then
    for f in controller.log run-guest-1.log guest-boot1.console.log run-guest-2.log guest-boot2.console.log; do
      [ -f "$OUT/$f" ] || continue
      echo "---- last lines of $OUT/$f" >&2
      tail -n 15 "$OUT/$f" | tr -d '\r' >&2
    done
    echo "kvm_guest: FAILED (exit $rc); logs in $OUT" >&2
    grep -h 'FAIL:' "$OUT/driver.log" 2>/dev/null | tail -1 >&2 || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$OUT"; mkdir -p "$OUT"
t0=$SECONDS
# the guest image (cached in build/vm) and qemu; failing here means no guest on this host
if ! "$ROOT/obi/vm/build-guest.sh" -q > "$OUT/build-guest.log" 2>&1; then
  cat "$OUT/build-guest.log" >&2
  if grep -qE 'cannot install|apt-get download .* failed|cannot find the Debian kernel' "$OUT/build-guest.log"; then
    skip "the guest cannot be built here: $(grep -m1 '^build-guest:' "$OUT/build-guest.log")"
  fi
  fail "obi/vm/build-guest.sh failed"
fi
echo "kvm_guest: guest image $(sed -n 's/^initramfs \([0-9]*\) bytes.*/initramfs \1 bytes/p' "$ROOT/build/vm/manifest")," \
  "$(sed -n 's/^\(vmlinu[zx] [0-9]* bytes\).*/\1/p' "$ROOT/build/vm/manifest" | paste -sd, -)" \
  "($((SECONDS - t0)) s)"
if ! accel=$("$ROOT/obi/vm/run-guest.sh" --check-accel 2> "$OUT/check-accel.log"); then
  cat "$OUT/check-accel.log" >&2
  grep -q 'cannot install' "$OUT/check-accel.log" && skip "qemu cannot be installed here"
  fail "run-guest.sh --check-accel failed"
fi
if [ "$accel" != kvm ]; then
  echo "kvm_guest: WARNING: KVM cannot run the guest here (${accel#tcg: }); the guest runs under TCG"
  [ "${KVM_GUEST_NO_TCG:-0}" != 1 ] || skip "KVM cannot run the guest (${accel#tcg: }) and KVM_GUEST_NO_TCG=1"
  accel=tcg
fi

echo "kvm_guest: building the topology (namespaces $P-{$(IFS=,; echo "${HOSTS[*]}")})"
for n in "${HOSTS[@]}"; do
  ip netns add "$P-$n"
  ip netns exec "$P-$n" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$P-$n" link set lo up
done
for b in ctl in out; do
  ip -n "$P-host" link add "br-$b" type bridge
  ip -n "$P-host" link set "br-$b" up
done
ip link add h-ctl netns "$P-host" type veth peer name ctl0 netns "$P-ctl"
ip link add h-in netns "$P-host" type veth peer name snd0 netns "$P-snd"
ip link add h-out netns "$P-host" type veth peer name rcv0 netns "$P-rcv"
for b in ctl in out; do ip -n "$P-host" link set "h-$b" master "br-$b" up; done
ip -n "$P-ctl" addr add 10.98.0.1/24 dev ctl0
ip -n "$P-ctl" link set ctl0 up
ip -n "$P-snd" link set snd0 up
ip -n "$P-rcv" link set rcv0 up

# bounded: the driver stops by itself; timeout only guards against a hang. Run in the
# background and waited for, so INT/TERM reach the trap at once.
(timeout -k 10 600 ip netns exec "$P-ctl" env OPENBOX_ROOT="$ROOT" OPENBOX_PKI="$OUT/pki" \
  python3 "$ROOT/tests/system/lib/kvm_guest.py" --prefix "$P" --out "$OUT" --accel "$accel" 2>&1 \
  | tee "$OUT/driver.log") &
wait $!
echo "kvm_guest: passed in $((SECONDS - t0)) s"
