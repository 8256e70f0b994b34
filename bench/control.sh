#!/usr/bin/env bash
# Control-plane benchmark. Controller side: KeepAlive / GlobalStats / Read round trips
# (p50/p99) against a real controller process on loopback, then 1000 simulated OBIs kept
# alive at a 1 s interval. OBI side (control_bench): a real obi process ($OBI, default
# build/obi/obi) driven by a controller endpoint over loopback HTTP: SetProcessingGraph
# swaps of the 4560-rule firewall while traffic runs (zero-loss accounting), KeepAlive,
# GlobalStats, Read, Write, AddCustomModule / RemoveCustomModule.
#
#   bench/control.sh [--json] [--n N] [--obis N] [--seconds S] [--swaps N] [--obi-only]
#                    [--controller-only] [--tls] [--start-seconds S] [--warmup-seconds W]
#                    [--metrics | --metrics-interval D] [--metrics-path keepalive|request] [--pin]
#
# Prints one JSON object per line: {"message": TYPE, "transport": T, "p50_ms": X, "p99_ms": X,
# "n": N} per message type, then the keep-alive scale figures (OBIs up, missed deadlines,
# controller CPU %, heap and RSS), then the OBI-side lines (marked "side": "obi"). --json is
# accepted for symmetry with the other suites (the output is always JSON lines). The OBI side
# needs root (it runs in a private network namespace with a veth pair). OBI and CONTROL_BENCH
# name other executables than build/obi/{obi,control_bench}.
# The controller runs with a fixed 512 MB heap and the simulated fleet with a fixed 1 GB one
# (-Xms = -Xmx: a heap G1 resizes settles differently from run to run);
# CONTROLLER_JAVA_OPTS and BENCH_JAVA_OPTS add JVM options to either (GC logs, JFR).
#
# Without --tls both sides run plain HTTP (the controller with openbox.insecure). With --tls
# the controller side runs twice, each time against a fresh controller: plain HTTP, then
# mutual TLS, and ends with the TLS / plain ratios ("side": "controller"). Over TLS the
# controller serves HTTPS with the SSL bundle ./openbox gives it (client certificates
# wanted), the round-trip OBI presents obi-1's certificate, every simulated OBI its own
# (obi-100000 on) on its own connection and serves HTTPS with it (one thread serves all of
# them on one port, choosing the certificate by the address connected to; one thread sends
# for all of them), and the management calls trust the CA; those lines are marked
# "transport": "tls". The simulated OBIs behave as the OBI does (10 s KeepAlive until
# SetParametersRequest says 1 s, Hello again after three failed KeepAlives) and start evenly
# over --start-seconds S (default 2); the window starts --warmup-seconds W (default 2) after
# the last one registered (the controller's JIT compiler is busy for about 30 s). The window
# also reports the controller's CPU per kind of thread ("controller_cpu_pct_by_thread"). The
# OBI side runs twice, plain HTTP and then mutual
# TLS, every line marked "transport", and ends with one line per message type:
# {"message", "side": "obi", "tls_over_plain_p50", ..._p99}.
# Certificates live in build/bench-pki: the CA and the controller's, obi-1 and obi-7 made
# with `openbox pki`, the simulated OBIs' with one openssl process each (kept while the CA
# stays the same). The controller's log: obc/server/target/bench-controller.log.{plain,tls}.
#
# The controller collects data-plane metrics from its OBIs (openbox.metrics.interval, 10s by
# default). --metrics-path keepalive (the default): the simulated OBIs take its
# metrics_subscription and attach their figures to a KeepAlive every interval, as the OBI
# does; --metrics-path request: they refuse it, as an OBI that does not know it, and answer
# the controller's GlobalStats and Read requests instead. The window reports the collection
# requests the simulated OBIs received and their KeepAlives with metrics
# ("collection_requests_window", "keepalives_with_metrics_window"), and the KeepAlive p50/p99
# of those with figures and of the rest ("keepalive_p99_ms_with_metrics", "..._without_metrics"). --metrics-interval D runs
# it with D (off: no collection); --metrics runs the controller side three times on the same
# machine: without collection, every 10 s on KeepAlives, every 10 s by request, each line
# marked "metrics_interval" and "metrics_path".
# --pin runs the controller on CPU 0 and the simulated OBIs on CPU 1 (taskset), so that the
# controller's KeepAlive latency is not the fleet's scheduling: on a 2-core machine the
# process playing 1000 OBIs otherwise competes with the controller for both cores (a real
# controller does not share its cores with its OBIs).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N=2000 OBIS=1000 SECONDS_RUN=20 START_SECONDS=2 WARMUP_SECONDS=2 SWAPS=20 OBI_ONLY=0 CONTROLLER_ONLY=0 TLS=0 METRICS=0 METRICS_INTERVAL="" METRICS_PATH=keepalive PIN=0
while [ $# -gt 0 ]; do
  case "$1" in
    --json) shift ;;
    --n) N=$2; shift 2 ;;
    --obis) OBIS=$2; shift 2 ;;
    --seconds) SECONDS_RUN=$2; shift 2 ;;
    --start-seconds) START_SECONDS=$2; shift 2 ;;
    --warmup-seconds) WARMUP_SECONDS=$2; shift 2 ;;
    --swaps) SWAPS=$2; shift 2 ;;
    --obi-only) OBI_ONLY=1; shift ;;
    --controller-only) CONTROLLER_ONLY=1; shift ;;
    --tls) TLS=1; shift ;;
    --metrics) METRICS=1; shift ;;
    --metrics-interval) METRICS_INTERVAL=$2; shift 2 ;;
    --metrics-path) METRICS_PATH=$2; shift 2 ;;
    --pin) PIN=1; shift ;;
    -h|--help) sed -n '2,/^set /{/^#/p}' "$0"; exit 0 ;;
    *) echo "control.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

case "$METRICS_PATH" in keepalive|request) ;; *) echo "control.sh: --metrics-path is keepalive or request, not '$METRICS_PATH'" >&2; exit 2 ;; esac
[ "$OBI_ONLY" = 1 ] && [ "$CONTROLLER_ONLY" = 1 ] && { echo "control.sh: --obi-only and --controller-only exclude each other" >&2; exit 2; }
cd "$ROOT"
if [ "$METRICS" = 1 ]; then
  status=0
  for leg in off/keepalive 10s/keepalive 10s/request; do
    mi=${leg%/*} mp=${leg#*/}
    "$0" --controller-only --n "$N" --obis "$OBIS" --seconds "$SECONDS_RUN" --start-seconds "$START_SECONDS" --warmup-seconds "$WARMUP_SECONDS" --metrics-interval "$mi" \
      --metrics-path "$mp" $([ "$TLS" = 1 ] && echo --tls) $([ "$PIN" = 1 ] && echo --pin) \
      | sed "s/^{/{\"metrics_interval\": \"$mi\", \"metrics_path\": \"$([ "$mi" = off ] && echo none || echo "$mp")\", /" || status=1
  done
  exit "$status"
fi
CTRL_CPU=() BENCH_CPU=()
if [ "$PIN" = 1 ]; then
  [ "$(nproc)" -ge 2 ] || { echo "control.sh: --pin needs two CPUs" >&2; exit 2; }
  CTRL_CPU=(taskset -c 0) BENCH_CPU=(taskset -c 1)
fi
PKI="$ROOT/build/bench-pki"
FIRST_SIM_DPID=100000   # KeepAliveScale.FIRST_DPID

# Certificates of the simulated OBIs FIRST_SIM_DPID .. +OBIS-1 (CN obi-N, SAN
# urn:openbox:dpid:N, as `openbox pki obi N` makes them), one openssl process each, two at a
# time; all are remade when the CA changed since they were made.
sim_obi_certs() {
  local stamp="$PKI/sim-obis.ca" fp
  fp=$(openssl x509 -in "$PKI/ca.crt" -noout -fingerprint -sha256)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$fp" ]; then
    find "$PKI" -maxdepth 1 -name 'obi-1[0-9][0-9][0-9][0-9][0-9]*.*' -delete
    printf '%s\n' "$fp" > "$stamp"
  fi
  cat > "$PKI/sim-obi.cnf" <<'CNF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[obi]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyAgreement
extendedKeyUsage = serverAuth,clientAuth
subjectAltName = URI:urn:openbox:dpid:${ENV::DPID}
CNF
  local missing
  missing=$(for ((d = FIRST_SIM_DPID; d < FIRST_SIM_DPID + OBIS; d++)); do
    [ -f "$PKI/obi-$d.crt" ] && [ -f "$PKI/obi-$d.key" ] || echo "$d"; done)
  [ -n "$missing" ] || return 0
  echo "[bench] issuing $(wc -l <<<"$missing") simulated OBI certificates in $PKI" >&2
  # shellcheck disable=SC2016
  xargs -P 2 -I{} sh -c 'cd "$1" && umask 077 && DPID=$2 openssl req -x509 -config sim-obi.cnf -extensions obi \
      -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "obi-$2.key.tmp" -out "obi-$2.crt.tmp" \
      -subj "/O=OpenBox/CN=obi-$2" -CA ca.crt -CAkey ca.key -days 825 2>/dev/null \
      && mv "obi-$2.key.tmp" "obi-$2.key" && mv "obi-$2.crt.tmp" "obi-$2.crt"' _ "$PKI" {} <<<"$missing" \
    || { echo "control.sh: openssl could not issue the simulated OBI certificates in $PKI" >&2; exit 1; }
}

# OBI side: builds control_bench (and the sample module) in build/obi when missing.
obi_side() {
  local obi="${OBI:-$ROOT/build/obi/obi}" bench="${CONTROL_BENCH:-$ROOT/build/obi/control_bench}"
  if [ ! -x "$obi" ] || [ ! -x "$bench" ]; then
    echo "[bench] building the OBI and control_bench" >&2
    [ -f "$ROOT/build/obi/build.ninja" ] || cmake -S "$ROOT/obi" -B "$ROOT/build/obi" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$ROOT/build/obi" --target obi control_bench -j2 >/dev/null
  fi
  local graphs="$ROOT/build/bench-graphs" data="${OPENBOX_DATA:-$ROOT/../shared/data}"
  [ -f "$graphs/firewall.json" ] || python3 "$ROOT/obi/bench/make_graphs.py" --data "$data" --out "$graphs" >&2
  local n=$(( N < 200 ? N : 200 ))
  local run=("$bench" --obi "$obi" --firewall "$graphs/firewall.json" --pcap "$data/fw-4560.trace.pcap"
             --swaps "$SWAPS" --n "$n")
  if [ "$TLS" = 0 ]; then "${run[@]}"; return; fi
  local pki="$PKI" plain tls
  "$ROOT/openbox" pki --dir "$pki" controller 2>/dev/null && "$ROOT/openbox" pki --dir "$pki" obi 7 --ip 127.0.0.1 2>/dev/null
  plain=$("${run[@]}") || return 1
  printf '%s\n' "$plain"
  tls=$("${run[@]}" --pki "$pki") || return 1
  printf '%s\n' "$tls"
  python3 - "$plain" "$tls" <<'PY'
import json, sys
plain, tls = ({j["message"]: j for j in map(json.loads, a.splitlines())} for a in sys.argv[1:3])
for m, p in plain.items():
    t = tls.get(m)
    if t and p["p50_ms"] > 0 and p["p99_ms"] > 0:
        print(json.dumps({"message": m, "side": "obi", "tls_over_plain_p50": round(t["p50_ms"] / p["p50_ms"], 2),
                          "tls_over_plain_p99": round(t["p99_ms"] / p["p99_ms"], 2),
                          "plain_p50_ms": p["p50_ms"], "tls_p50_ms": t["p50_ms"]}))
PY
}
if [ "$OBI_ONLY" = 1 ]; then obi_side; exit 0; fi

SERVER="$ROOT/obc/server"
if ! ls "$SERVER"/target/openbox-controller-*.jar >/dev/null 2>&1 || [ ! -d "$SERVER/target/test-classes" ]; then
  echo "[bench] building the controller" >&2
  mvn -B -q -pl obc/server -am install -DskipTests >&2
  mvn -B -q -pl obc/server test-compile >&2
fi
CP_FILE="$SERVER/target/bench.classpath"
[ -f "$CP_FILE" ] || mvn -B -q -pl obc/server dependency:build-classpath -Dmdep.outputFile="$CP_FILE" >&2
JAR="$(ls "$SERVER"/target/openbox-controller-*.jar | grep -v original | head -1)"

if [ "$TLS" = 1 ]; then
  { "$ROOT/openbox" pki --dir "$PKI" controller && "$ROOT/openbox" pki --dir "$PKI" obi 1; } 2>/dev/null \
    || { echo "control.sh: could not make the certificates in $PKI (./openbox pki --dir $PKI controller)" >&2; exit 1; }
  sim_obi_certs
fi
LOG="$SERVER/target/bench-controller.log"
# the management credentials ./openbox uses; the benchmark calls the API with the bearer token
CREDS=$(python3 "$ROOT/apps/demo/credentials.py" ensure)
API_TOKEN=$(sed -n 's/^OPENBOX_API_TOKEN=//p' "$(dirname "$CREDS")/credentials")
# this tree's modules first: the class path file names the installed (possibly older) jars
OWN="$SERVER/target/test-classes:$SERVER/target/classes:$ROOT/protocol/target/classes:$ROOT/obc/api/target/classes"
CTRL=
trap '[ -z "$CTRL" ] || { kill $CTRL 2>/dev/null; wait $CTRL 2>/dev/null; } || true' EXIT

# One controller-side run against a fresh controller: $1 = plain or tls. Prints its JSON lines.
controller_side() {
  local scheme=http ctl_tls=(--openbox.insecure=true) bench_tls=() curl_tls=() port status=0
  if [ "$1" = tls ]; then
    local b="--spring.ssl.bundle.pem.openbox"
    scheme=https bench_tls=(--pki "$PKI") curl_tls=(--cacert "$PKI/ca.crt")
    ctl_tls=("$b.keystore.certificate=file:$PKI/controller.crt" "$b.keystore.private-key=file:$PKI/controller.key"
             "$b.truststore.certificate=file:$PKI/ca.crt" --server.ssl.bundle=openbox --server.ssl.client-auth=want)
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "${CTRL_CPU[@]}" java -Xms512m -Xmx512m ${CONTROLLER_JAVA_OPTS:-} -jar "$JAR" --port "$port" --server.address=127.0.0.1 --openbox.keepalive-interval=1s \
    "${ctl_tls[@]}" "--spring.config.additional-location=file:$CREDS" \
    ${METRICS_INTERVAL:+"--openbox.metrics.interval=$METRICS_INTERVAL"} --logging.level.org.openbox=WARN >"$LOG.$1" 2>&1 &
  CTRL=$!
  local up=0
  for _ in $(seq 1 400); do   # up to 2 minutes: a loaded machine starts a JVM slowly
    curl -sf ${curl_tls[@]+"${curl_tls[@]}"} "$scheme://127.0.0.1:$port/actuator/health" >/dev/null 2>&1 && { up=1; break; }
    kill -0 $CTRL 2>/dev/null || break
    sleep 0.3
  done
  if [ "$up" = 0 ]; then
    echo "control.sh: the controller did not come up, see $LOG.$1" >&2
    kill $CTRL 2>/dev/null || true; wait $CTRL 2>/dev/null || true; CTRL=
    return 1
  fi
  OPENBOX_API_TOKEN="$API_TOKEN" "${BENCH_CPU[@]}" java -Xms1g -Xmx1g ${BENCH_JAVA_OPTS:-} -cp "$OWN:$(cat "$CP_FILE")" \
    org.openbox.controller.bench.ControlBench --controller "$scheme://127.0.0.1:$port" --pid "$CTRL" \
    --n "$N" --obis "$OBIS" --seconds "$SECONDS_RUN" --start-seconds "$START_SECONDS" --warmup-seconds "$WARMUP_SECONDS" --metrics-path "$METRICS_PATH" ${bench_tls[@]+"${bench_tls[@]}"} || status=$?
  kill $CTRL 2>/dev/null || true   # the controller's threads would only add noise from here
  wait $CTRL 2>/dev/null || true
  CTRL=
  return "$status"
}

# Without --tls: plain HTTP. With --tls: plain HTTP, then mutual TLS, then TLS / plain ratios.
CTL_STATUS=0
if [ "$TLS" = 0 ]; then
  controller_side plain || CTL_STATUS=$?
else
  PLAIN_OUT=$(controller_side plain) || CTL_STATUS=$?
  printf '%s\n' "$PLAIN_OUT"
  TLS_OUT=$(controller_side tls) || CTL_STATUS=$?
  printf '%s\n' "$TLS_OUT"
  python3 - "$PLAIN_OUT" "$TLS_OUT" <<'PY'
import json, sys
def lines(text):
    return [json.loads(l) for l in text.splitlines() if l.startswith("{")]
plain, tls = (lines(a) for a in sys.argv[1:3])
trips = lambda ls: {j["message"]: j for j in ls if "message" in j}
scale = lambda ls: next((j for j in ls if "obis" in j), None)
for m, p in trips(plain).items():
    t = trips(tls).get(m)
    if t and p["p50_ms"] > 0 and p["p99_ms"] > 0:
        print(json.dumps({"message": m, "side": "controller", "tls_over_plain_p50": round(t["p50_ms"] / p["p50_ms"], 2),
                          "tls_over_plain_p99": round(t["p99_ms"] / p["p99_ms"], 2)}))
p, t = scale(plain), scale(tls)
if p and t:
    ratio = {}
    for k in ("keepalive_p99_ms", "controller_cpu_pct", "controller_heap_mb", "controller_rss_mb"):
        if p.get(k, -1) > 0 and t.get(k, -1) >= 0:
            ratio[k] = round(t[k] / p[k], 2)
    print(json.dumps({"obis": p["obis"], "side": "controller", "tls_over_plain": ratio,
                      "up": {"plain": p["up"], "tls": t["up"]},
                      "missed_deadlines_window": {"plain": p["missed_deadlines_window"], "tls": t["missed_deadlines_window"]}}))
PY
fi

# The OBI side runs even when the controller side failed; the exit status reports both.
[ "$CONTROLLER_ONLY" = 1 ] || obi_side
exit "$CTL_STATUS"
