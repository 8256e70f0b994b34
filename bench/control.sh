#!/usr/bin/env bash
# Controller benchmark: KeepAlive / GlobalStats / Read round trips (p50/p99) against a real
# controller process on loopback, then 1000 simulated OBIs kept alive at a 1 s interval.
#
#   bench/control.sh [--json] [--n N] [--obis N] [--seconds S]
#
# Prints one JSON object per line: {"message": TYPE, "p50_ms": X, "p99_ms": X, "n": N} per
# message type, then the keep-alive scale figures (OBIs up, missed deadlines, controller
# CPU %, heap and RSS). --json is accepted for symmetry with the other suites (the output
# is always JSON lines).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N=2000 OBIS=1000 SECONDS_RUN=20
while [ $# -gt 0 ]; do
  case "$1" in
    --json) shift ;;
    --n) N=$2; shift 2 ;;
    --obis) OBIS=$2; shift 2 ;;
    --seconds) SECONDS_RUN=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "control.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

cd "$ROOT"
SERVER="$ROOT/obc/server"
if ! ls "$SERVER"/target/openbox-controller-*.jar >/dev/null 2>&1 || [ ! -d "$SERVER/target/test-classes" ]; then
  echo "[bench] building the controller" >&2
  mvn -B -q -pl obc/server -am install -DskipTests >&2
  mvn -B -q -pl obc/server test-compile >&2
fi
CP_FILE="$SERVER/target/bench.classpath"
[ -f "$CP_FILE" ] || mvn -B -q -pl obc/server dependency:build-classpath -Dmdep.outputFile="$CP_FILE" >&2
JAR="$(ls "$SERVER"/target/openbox-controller-*.jar | grep -v original | head -1)"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
LOG="$SERVER/target/bench-controller.log"
java -Xmx512m -jar "$JAR" --port "$PORT" --openbox.keepalive-interval=1s \
  --logging.level.org.openbox=WARN >"$LOG" 2>&1 &
CTRL=$!
trap 'kill $CTRL 2>/dev/null || true; wait $CTRL 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$PORT/actuator/health" >/dev/null 2>&1 && break
  kill -0 $CTRL 2>/dev/null || { echo "control.sh: controller exited, see $LOG" >&2; exit 1; }
  sleep 0.3
done

java -cp "$SERVER/target/test-classes:$SERVER/target/classes:$(cat "$CP_FILE")" \
  org.openbox.controller.bench.ControlBench --controller "http://127.0.0.1:$PORT" --pid "$CTRL" \
  --n "$N" --obis "$OBIS" --seconds "$SECONDS_RUN"
