#!/usr/bin/env bash
# Container system test: the deployment of docker-compose.yml (controller, OBIs 1 and 2, the
# replayer and the receiver, mutual TLS) built and run by a real container engine, with
# the checks of multihost.sh: both OBIs UP with their graph, the replayer's traces
# delivered and dropped per traffic class as the sample firewall and IPS say, alerts per
# (application, dpid) through the management API, `kill obi1` -> DOWN within the keep-alive
# timeout and InstanceDown, `start obi1` -> Hello and the graph pushed again, and the
# traces through both OBIs again. The checks are in lib/compose.py.
#
#   tests/system/compose.sh           (as root; ~2-4 min with the caches below, the first
#                                      run makes the base image and builds the images:
#                                      ~25 min on 2 busy cores)
#
# The engine: a running Docker engine (DOCKER_HOST or the default socket) is used as it is.
# Otherwise Debian's docker.io and docker-compose are installed when missing and a private
# dockerd is started for the run and stopped again: socket and state in /run/openbox-compose,
# images in build/compose/docker; no docker0 bridge, no iptables rules, no ip_forward
# change (the deployment's networks need none of them); storage driver overlay2, else
# fuse-overlayfs, else vfs. Compose: `docker compose` or docker-compose (1.29 or newer).
# Where no engine can start, one line "compose: SKIPPED: <why>" and exit 77, which
# `./openbox test` reports as SKIPPED, never as passed.
#
# Docker Hub is not needed: the base image openbox/debian:bookworm is made with
# debootstrap (--variant=minbase) from the Debian mirror apt uses ($OPENBOX_DEBIAN_MIRROR
# overrides it) and imported; its tarball is kept in build/compose/. The images are built
# with BASE=openbox/debian:bookworm; the controller's from the jars `./openbox build`
# made on the host (obc/server/prebuilt.Dockerfile), the OBI's and the replayer's from the
# host's OBI binary (obi/prebuilt.Dockerfile), both through tests/system/compose/prebuilt.yml.
#
# Everything the test starts (containers, networks, the engine) is removed on exit, also
# on failure or Ctrl-C. Logs: build/systest/compose/ (or $OBX_SYSTEST_OUT).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OBX_SYSTEST_OUT:-$ROOT/build/systest/compose}"
CACHE="$ROOT/build/compose"
ENGINE_DIR=/run/openbox-compose
BASE_IMAGE=openbox/debian:bookworm
BASE_TAR="$CACHE/debian-bookworm.tar.gz"
ROOTFS="$CACHE/rootfs.tmp"        # debootstrap's target while the base image is made
SKIP=77
export COMPOSE_PROJECT_NAME=obxcompose
export COMPOSE_FILE="docker-compose.yml:tests/system/compose/prebuilt.yml"

say() { printf 'compose: %s\n' "$*"; }
fail() { printf 'compose: FAIL: %s\n' "$*" >&2; exit 1; }
skip() { printf 'compose: SKIPPED: %s\n' "$*"; exit "$SKIP"; }

[ "$(id -u)" = 0 ] || fail "must run as root (it installs and starts a container engine)"
for c in python3 curl; do command -v "$c" >/dev/null || fail "'$c' is not installed"; done
mkdir -p "$CACHE" "$OUT"
exec 8>"$CACHE/.lock"
flock -n 8 || fail "another run of compose.sh holds $CACHE/.lock"

OWN_ENGINE=0      # 1 while a dockerd this run started is up
TRIED_ENGINE=0    # 1 once this run tried to start one (its directory is removed on exit)
COMPOSE=()

apt_install() { # package... (quiet; the caller reports failure)
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >>"$OUT/apt.log" 2>&1 \
    || { apt-get update -qq >>"$OUT/apt.log" 2>&1 \
         && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >>"$OUT/apt.log" 2>&1; }
}

unmount_under() { # directory: unmounts whatever is mounted below it, deepest first
  local m
  for m in $(awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

stop_own_engine() {
  local pid
  pid=$(cat "$ENGINE_DIR/dockerd.pid" 2>/dev/null) || pid=
  # only a dockerd of this test: its command line names ENGINE_DIR
  if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--exec-root $ENGINE_DIR/exec"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  # what dockerd leaves mounted in its exec root (the namespace file of its netns "default")
  unmount_under "$ENGINE_DIR"
  rm -rf "$ENGINE_DIR"
}

DRIVER=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$DRIVER" ] && kill -0 "$DRIVER" 2>/dev/null; then
    kill -TERM "$DRIVER" 2>/dev/null || true
    wait "$DRIVER" 2>/dev/null || true
  fi
  if ((${#COMPOSE[@]})) && docker info >/dev/null 2>&1; then
    (cd "$ROOT" && "${COMPOSE[@]}" logs --no-color >"$OUT/containers.log" 2>&1) || true
    (cd "$ROOT" && "${COMPOSE[@]}" down --remove-orphans --timeout 5 >>"$OUT/compose.log" 2>&1) \
      || echo "compose: could not remove the containers and networks (see $OUT/compose.log)" >&2
  fi
  if [ -d "$ROOTFS" ]; then   # an interrupted debootstrap (it mounts /proc and /sys in the target)
    unmount_under "$ROOTFS"
    rm -rf "$ROOTFS"
  fi
  if ((OWN_ENGINE)); then
    stop_own_engine
    say "stopped the Docker engine it started"
  elif ((TRIED_ENGINE)); then
    stop_own_engine
  fi
  if [ "$rc" != 0 ] && [ "$rc" != "$SKIP" ]; then
    [ -f "$OUT/containers.log" ] && { echo "---- last lines of $OUT/containers.log" >&2; tail -n 20 "$OUT/containers.log" >&2; }
    echo "compose: FAILED (exit $rc); logs in $OUT" >&2
    grep -h 'FAIL:' "$OUT/driver.log" 2>/dev/null | tail -1 >&2 || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -f "$OUT"/*.log

# ---------------------------------------------------------------- the engine
start_own_engine() { # storage driver
  TRIED_ENGINE=1
  mkdir -p "$ENGINE_DIR" "$CACHE/docker"
  export DOCKER_HOST="unix://$ENGINE_DIR/docker.sock"
  # no default bridge, no iptables rules, no NAT, no ip_forward change: the deployment's
  # own networks are bridges between containers and builds use the host's network
  setsid dockerd --data-root "$CACHE/docker" --exec-root "$ENGINE_DIR/exec" --host "$DOCKER_HOST" \
    --pidfile "$ENGINE_DIR/dockerd.pid" --storage-driver "$1" --exec-opt native.cgroupdriver=cgroupfs \
    --bridge=none --iptables=false --ip-forward=false --ip-masq=false \
    >"$OUT/dockerd-$1.log" 2>&1 </dev/null 8>&- &
  local pid=$! i
  OWN_ENGINE=1
  for i in $(seq 1 150); do
    docker info >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  OWN_ENGINE=0
  return 1
}

ENGINE_WHY=()
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  say "using the running Docker engine ($(docker info --format '{{.ServerVersion}}, storage {{.Driver}}' 2>/dev/null))"
else
  if ! command -v docker >/dev/null || ! command -v dockerd >/dev/null; then
    say "installing Debian's docker.io (container engine)"
    apt_install docker.io || skip "cannot install Debian's docker.io with apt-get (see $OUT/apt.log)"
  fi
  stop_own_engine   # a leftover of a run that was killed outright (the lock rules out a live one)
  for driver in overlay2 fuse-overlayfs vfs; do
    if [ "$driver" = fuse-overlayfs ] && ! command -v fuse-overlayfs >/dev/null; then
      apt_install fuse-overlayfs || { ENGINE_WHY+=("fuse-overlayfs: cannot install it"); continue; }
    fi
    if start_own_engine "$driver"; then
      say "started dockerd $(docker info --format '{{.ServerVersion}}' 2>/dev/null) (storage $driver, state in $CACHE/docker)"
      break
    fi
    ENGINE_WHY+=("$driver: $(grep -h -E 'level=(fatal|error)|failed' "$OUT/dockerd-$driver.log" | tail -1 | sed -E 's/.*msg="?//; s/"$//' | cut -c1-160)")
  done
  ((OWN_ENGINE)) || skip "dockerd cannot start here: $(printf '%s; ' "${ENGINE_WHY[@]}")logs $OUT/dockerd-*.log"
fi

if docker compose version >/dev/null 2>&1; then
  COMPOSE=(docker compose)
else
  command -v docker-compose >/dev/null || apt_install docker-compose \
    || fail "neither 'docker compose' nor docker-compose, and apt-get cannot install docker-compose (see $OUT/apt.log)"
  COMPOSE=(docker-compose)
fi
say "compose tool: ${COMPOSE[*]} ($("${COMPOSE[@]}" version --short 2>/dev/null || echo '?'))"
cd "$ROOT"
"${COMPOSE[@]}" down --remove-orphans --timeout 5 >"$OUT/compose.log" 2>&1 || true   # an earlier run's

# ---------------------------------------------------------------- the base image
debian_mirror() {
  if [ -n "${OPENBOX_DEBIAN_MIRROR:-}" ]; then echo "$OPENBOX_DEBIAN_MIRROR"; return; fi
  apt-cache policy 2>/dev/null | awk '$3 == "bookworm/main" { print $2; exit }'
}
if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  if [ ! -s "$BASE_TAR" ]; then
    command -v debootstrap >/dev/null || apt_install debootstrap || fail "cannot install debootstrap (see $OUT/apt.log)"
    mirror=$(debian_mirror)
    [ -n "$mirror" ] || fail "no Debian bookworm mirror in apt's sources; set OPENBOX_DEBIAN_MIRROR"
    say "making the base image with debootstrap --variant=minbase bookworm from $mirror (~2 min, once)"
    unmount_under "$ROOTFS"
    rm -rf "$ROOTFS"
    debootstrap --variant=minbase bookworm "$ROOTFS" "$mirror" >"$OUT/debootstrap.log" 2>&1 \
      || fail "debootstrap failed: $(tail -n 1 "$OUT/debootstrap.log") (see $OUT/debootstrap.log)"
    unmount_under "$ROOTFS"
    tar -C "$ROOTFS" -c . | gzip -1 >"$BASE_TAR.tmp"
    mv "$BASE_TAR.tmp" "$BASE_TAR"
    rm -rf "$ROOTFS"
  fi
  gzip -dc "$BASE_TAR" | docker import - "$BASE_IMAGE" >/dev/null || fail "docker import of $BASE_TAR failed"
  say "imported $BASE_TAR as $BASE_IMAGE"
fi
export OPENBOX_BASE_IMAGE="$BASE_IMAGE"

# ---------------------------------------------------------------- images
jar() { compgen -G "$1" | head -n 1; }
if [ -z "$(jar "$ROOT/obc/server/target/openbox-controller-*[0-9T].jar")" ]; then
  say "building (controller jar missing)"
  "$ROOT/openbox" build
fi
stage="$CACHE/controller"
rm -rf "$stage"; mkdir -p "$stage/apps" "$stage/more-apps"
cp "$(jar "$ROOT/obc/server/target/openbox-controller-*[0-9T].jar")" "$stage/controller.jar"
for app in firewall ips webcache loadbalancer; do
  j=$(jar "$ROOT/apps/$app/target/openbox-app-$app-*[0-9T].jar")
  [ -n "$j" ] || fail "apps/$app/target holds no application jar (run ./openbox build)"
  case $app in firewall|ips) cp "$j" "$stage/apps/" ;; *) cp "$j" "$stage/more-apps/" ;; esac
done
cp -r "$ROOT/apps/demo/sample" "$stage/sample"
# the OBI image from the host's binary (obi/prebuilt.Dockerfile): the host runs the base
# image's Debian release, so the packages holding the libraries it links are the image's
[ -x "$ROOT/build/obi/obi" ] || "$ROOT/openbox" build
stage="$CACHE/obi"
rm -rf "$stage"; mkdir -p "$stage"
cp "$ROOT/build/obi/obi" "$ROOT/obi/docker-entrypoint.sh" "$stage/"
cp -r "$ROOT/apps/demo" "$stage/demo"; rm -rf "$stage/demo/__pycache__"
cp -r "$ROOT/tests/system/compose" "$stage/compose"
: > "$stage/runtime-packages"
for lib in $(ldd "$stage/obi" | awk '/=> \// {print $3}'); do
  p=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "/usr$lib" 2>/dev/null) \
    || fail "the OBI links $lib, which no installed Debian package holds"
  echo "${p%%:*}" >> "$stage/runtime-packages"
done
sort -u -o "$stage/runtime-packages" "$stage/runtime-packages"
t0=$SECONDS
say "building the images (from the host's jars and OBI binary; log $OUT/build.log)"
"${COMPOSE[@]}" build >"$OUT/build.log" 2>&1 || fail "image build failed: $(grep -v '^\s*$' "$OUT/build.log" | tail -n 1) (see $OUT/build.log)"
say "images ready in $((SECONDS - t0)) s"

# ---------------------------------------------------------------- certificates, credentials
export OPENBOX_PKI="$OUT/pki" OPENBOX_CREDENTIALS="$OUT/credentials" OPENBOX_COMPOSE_OUT="$OUT/receiver"
rm -rf "$OPENBOX_PKI" "$OPENBOX_COMPOSE_OUT"
mkdir -p "$OPENBOX_COMPOSE_OUT"
"$ROOT/openbox" pki --dir "$OPENBOX_PKI" controller --ip 10.99.0.1 >/dev/null
"$ROOT/openbox" pki --dir "$OPENBOX_PKI" obi 1 --ip 10.99.0.11 >/dev/null
"$ROOT/openbox" pki --dir "$OPENBOX_PKI" obi 2 --ip 10.99.0.12 >/dev/null
python3 "$ROOT/apps/demo/credentials.py" ensure >/dev/null
OPENBOX_CONTROLLER_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export OPENBOX_CONTROLLER_PORT

# ---------------------------------------------------------------- the deployment and the checks
# bounded: the driver stops by itself; timeout only guards against a hang. Run in the
# background and waited for, so INT/TERM reach the trap at once; timeout runs in a process
# group of its own, so the trap stops it (and the driver with it) before removing anything.
timeout -k 10 600 python3 "$ROOT/tests/system/lib/compose.py" --out "$OUT" --compose "${COMPOSE[*]}" \
  > >(tee "$OUT/driver.log") 2>&1 &
DRIVER=$!
wait "$DRIVER"
