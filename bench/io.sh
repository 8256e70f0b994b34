#!/usr/bin/env bash
# Forwarding over real I/O (needs root): packets per second and latency percentiles of an
# OBI forwarding between veth pairs (pass-through and the 4560-rule firewall, one worker),
# with the OBI as a process, in a container and in a qemu guest, fed by iogen (the OBI's
# own TPACKET_V2 transmit ring, one sendto per batch of 32) and measured at the far side.
#
#   ./openbox bench io [--deploy LIST] [--graphs LIST] [--io LIST] [--seconds S]
#                      [--lat-seconds S] [--lat-rate PPS] [--cores G,O] [--busy-poll]
#                      [--perf] [--json]
#
#   --deploy LIST      process,container,vm (default all three)
#   --graphs LIST      passthrough,firewall (default both)
#   --io LIST          I/O of the process deployment: afpacket (FromDevice/ToDevice,
#                      TPACKET_V3 block receive ring), afpacket-frame (the same with
#                      FromDevice's per-frame ring, rx_ring "frame"), dpdk-afpacket (DPDK's
#                      af_packet poll-mode driver on the same veths), memif (DPDK net_memif
#                      ports to and from iogen as a DPDK process, no veth, no hugepages);
#                      default all four. The container and the guest use afpacket.
#   --cores G,O        CPUs of the memif generator and of the memif OBI (default: the
#                      first two this process may use), each process pinned to its CPU
#   --busy-poll        the OBIs of the process deployment run with obi run --busy-poll
#                      (an idle worker never sleeps)
#   --seconds S        length of each rate measurement (default 4)
#   --lat-seconds S    length of each latency measurement (default 3)
#   --lat-rate PPS     fixed rate of the latency measurement (default 2000 frames/s)
#   --perf             after each rate run of the process deployment, one more with perf
#                      sampling all CPUs (not counted in the figures): where the time goes
#   --json             JSON lines only (no table)
#
# Rates: iogen sends the fw-4560 trace as fast as it can for S seconds; offered = the
# generator veth's tx_packets, forwarded = the sink veth's rx_packets, over iogen's run
# time. The generator's own rate into a sink veth (no OBI between) is measured first and
# printed with every row. Latency: iogen stamps each frame (a 16-byte trailer: sequence
# number, send time) at the fixed rate; iogen sink reads the sink veth and takes the
# kernel's receive time stamp minus the stamp; p50/p90/p99/p99.9 over the frames.
# memif: iogen memif sends the trace on one memif port and counts (and times, with
# --stamp: receive time minus stamp, both taken by its one busy-polling thread) what the
# OBI forwards back on a second; its rate alone is measured into an iogen sink.
# "generator waiting": the share of iogen's send attempts that the peer's ring did not
# take whole; near 100 % the generator is waiting for the OBI (or the sink), not the limit.
#
# Everything lives in namespaces of its own (iob<PID>-gen, -dut, -sink, -vm) and is
# removed on exit, also on failure or Ctrl-C (trap): the OBIs, the container (and a
# private dockerd started for the run: --bridge=none --iptables=false
# --ip-forward=false, state under build/bench-io/docker), qemu. A full run takes about
# 6-7 minutes (the guest boots under TCG when KVM cannot run it, announced in the output).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${OPENBOX_DATA:-$ROOT/../shared/data}"
OBI="${OBI:-$ROOT/build/obi/obi}"
IOGEN="${IOGEN:-$(dirname "$OBI")/iogen}"
WORK="$ROOT/build/bench-io"
DEPLOY=process,container,vm
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --deploy) [ $# -ge 2 ] || { echo "io.sh: --deploy needs a value" >&2; exit 2; }; DEPLOY=$2; shift 2 ;;
    --graphs|--io|--seconds|--lat-seconds|--lat-rate|--cores)
      [ $# -ge 2 ] || { echo "io.sh: $1 needs a value" >&2; exit 2; }; ARGS+=("$1" "$2"); shift 2 ;;
    --perf|--json|--busy-poll) ARGS+=("$1"); shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
    *) echo "io.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for d in ${DEPLOY//,/ }; do
  case "$d" in process|container|vm) ;; *) echo "io.sh: --deploy: unknown deployment '$d' (process, container, vm)" >&2; exit 2 ;; esac
done
[ "$(id -u)" = 0 ] || { echo "io.sh: needs root (network namespaces)" >&2; exit 2; }
[ -x "$OBI" ] || { echo "io.sh: no OBI binary at $OBI (./openbox build)" >&2; exit 2; }
[ -x "$IOGEN" ] || { echo "io.sh: no iogen at $IOGEN (./openbox build)" >&2; exit 2; }
mkdir -p "$WORK"
P="iob$$"
ENGINE_DIR="/run/$P-docker"
say() { echo "io: $*" >&2; }

stop_engine() {
  local pid
  pid=$(cat "$ENGINE_DIR/dockerd.pid" 2>/dev/null) || return 0
  # only the dockerd this run started: its command line names ENGINE_DIR
  if tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$ENGINE_DIR"; then
    docker ps -aq --filter "label=openbox-bench-io=$P" | xargs -r docker rm -f >/dev/null 2>&1 || true
    docker rmi -f "openbox/obi-bench-io:$P" >/dev/null 2>&1 || true   # made for this run only
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  umount "$ENGINE_DIR"/exec/netns/* 2>/dev/null || true
  rm -rf "$ENGINE_DIR"
}
cleanup() {
  local n pid
  trap - EXIT INT TERM
  stop_engine
  for n in gen dut sink vm; do
    [ -e "/var/run/netns/$P-$n" ] || continue
    # only processes this run started live in its namespaces (OBI, iogen, qemu)
    for pid in $(ip netns pids "$P-$n" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$P-$n" 2>/dev/null || true
  done
  rm -f /run/"$P"-memif-*.sock   # memif control sockets, when not abstract
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for n in gen dut sink vm; do
  ip netns add "$P-$n"
  ip netns exec "$P-$n" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$P-$n" link set lo up
done

PYARGS=(--obi "$OBI" --iogen "$IOGEN" --data "$DATA" --work "$WORK" --prefix "$P" --deploy "$DEPLOY")
if [[ ",$DEPLOY," == *,container,* ]]; then
  # a private engine and an image holding the host's OBI binary, the libraries it loads
  # and a static busybox (sh, sleep): made in seconds, no registry
  command -v dockerd >/dev/null && command -v docker >/dev/null \
    || { echo "io.sh: the container deployment needs docker.io (apt-get install docker.io) or --deploy without container" >&2; exit 2; }
  command -v busybox >/dev/null || { echo "io.sh: the container image needs busybox-static" >&2; exit 2; }
  mkdir -p "$ENGINE_DIR" "$WORK/docker"
  export DOCKER_HOST="unix://$ENGINE_DIR/docker.sock"
  started=0
  for driver in overlay2 vfs; do
    setsid dockerd --data-root "$WORK/docker" --exec-root "$ENGINE_DIR/exec" --host "$DOCKER_HOST" \
      --pidfile "$ENGINE_DIR/dockerd.pid" --storage-driver "$driver" --exec-opt native.cgroupdriver=cgroupfs \
      --bridge=none --iptables=false --ip-forward=false --ip-masq=false \
      >"$WORK/dockerd.log" 2>&1 </dev/null &
    for _ in $(seq 1 100); do docker info >/dev/null 2>&1 && { started=1; break; }; sleep 0.2; done
    [ "$started" = 1 ] && break
    stop_engine; mkdir -p "$ENGINE_DIR"
  done
  [ "$started" = 1 ] || { echo "io.sh: dockerd does not start here (see $WORK/dockerd.log)" >&2; exit 1; }
  rootfs="$WORK/image"
  rm -rf "$rootfs"; mkdir -p "$rootfs/bin" "$rootfs/usr/local/bin" "$rootfs/tmp"
  cp "$OBI" "$rootfs/usr/local/bin/obi"
  for lib in $(ldd "$OBI" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\/.*ld-linux/ {print $1}'); do
    cp -L --parents "$lib" "$rootfs/"
  done
  cp "$(command -v busybox)" "$rootfs/bin/busybox"
  ln -s busybox "$rootfs/bin/sh"; ln -s busybox "$rootfs/bin/sleep"
  tar -C "$rootfs" -c . | docker import - "openbox/obi-bench-io:$P" >/dev/null
  say "container engine up ($(docker info --format '{{.ServerVersion}}, storage {{.Driver}}')), image openbox/obi-bench-io:$P"
  PYARGS+=(--image "openbox/obi-bench-io:$P")
fi
if [[ ",$DEPLOY," == *,vm,* ]]; then
  OBI="$OBI" "$ROOT/obi/vm/build-guest.sh" -q >"$WORK/build-guest.log" 2>&1 \
    || { cat "$WORK/build-guest.log" >&2; echo "io.sh: the guest cannot be built (above); --deploy without vm" >&2; exit 1; }
  accel=$("$ROOT/obi/vm/run-guest.sh" --check-accel 2>"$WORK/check-accel.log") \
    || { cat "$WORK/check-accel.log" >&2; exit 1; }
  [ "$accel" = kvm ] || say "WARNING: KVM cannot run the guest here (${accel#tcg: }): the guest runs under qemu's CPU emulation (TCG)"
  PYARGS+=(--accel "${accel%%:*}")
fi
# bounded: the driver stops by itself; run in the background so INT/TERM reach the trap
python3 "$ROOT/bench/io.py" "${PYARGS[@]}" "${ARGS[@]}" &
wait $!
