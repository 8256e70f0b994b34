#!/usr/bin/env bash
# Configuration checking and fail-closed start-up through the real front end (./openbox),
# the real controller jar, the real application jars and the real OBI binary:
#   - `./openbox check APP-DIR` on the shipped applications and sample settings exits 0;
#   - seeded mistakes give one line each, FILE:LINE or app NAME, and exit 1: a rule typo, an
#     unknown settings key, an ipvar cycle, a pattern Java accepts and Hyperscan refuses;
#   - the front end refuses a missing topology, a bad port, an unknown option and a port in
#     use with one line; the controller itself says "port ... is already in use" in one line;
#   - an application over a per-application limit (openbox.limits.apps.NAME.*) is one line
#     naming the limit;
#   - the controller without management credentials does not start (one line); the front end
#     gives it the generated ones and binds it to 127.0.0.1; the API answers 401 without them;
#   - the controller with a broken application does not start; with --allow-failed-apps it
#     starts (TLS through the front end, certificates in $WORK/pki) and the application is
#     REFUSED.
# Needs: build/obi/obi, the Java modules built (./openbox build). Work files go to
# build/systest/config_check (kept after a failure for inspection). About 1.5 minutes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${CONFIG_CHECK_WORK:-$ROOT/build/systest/config_check}"
SAMPLE="$ROOT/apps/demo/sample"
OPENBOX="$ROOT/openbox"

fail() { echo "config_check: FAIL: $*" >&2; exit 1; }
ok() { echo "config_check: ok: $*"; }
[ -x "$ROOT/build/obi/obi" ] || fail "no OBI binary at build/obi/obi (./openbox build)"

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

rm -rf "$WORK"
mkdir -p "$WORK/apps" "$WORK/broken"
# the front end runs the controller with TLS: a CA and certificate of this test's own
export OPENBOX_PKI="$WORK/pki"
for m in firewall ips webcache loadbalancer; do
  jar=$(ls "$ROOT/apps/$m/target/"openbox-app-"$m"-*.jar 2>/dev/null | grep -v -e sources -e original | head -1)
  [ -n "$jar" ] || fail "application jar of $m not built (./openbox build)"
  cp "$jar" "$WORK/apps/"
done
start=$(date +%s)

# expect NAME RC PATTERN OUTFILE: exit code RC and a line matching PATTERN (grep -E)
expect() {
  local name=$1 rc=$2 pattern=$3 out=$4 got=$5
  [ "$got" = "$rc" ] || { cat "$out" >&2; fail "$name: exit code $got, expected $rc"; }
  grep -Eq -- "$pattern" "$out" || { cat "$out" >&2; fail "$name: no line matching '$pattern'"; }
  ok "$name: $(grep -E -m1 -- "$pattern" "$out")"
}

# 1. the shipped applications with their sample settings
rc=0; (cd "$SAMPLE" && "$OPENBOX" check "$WORK/apps") > "$WORK/shipped.out" 2>&1 || rc=$?
expect "check on the shipped apps" 0 "^configuration OK: 4 application\(s\), graphs compiled by the OBI" "$WORK/shipped.out" $rc

# 2. seeded mistakes: rule typo (firewall), ipvar cycle (ips), unknown key (loadbalancer)
cp "$SAMPLE"/*.properties "$SAMPLE"/*.rules "$WORK/broken/"
cp -r "$SAMPLE/www" "$WORK/broken/"
sed -i '5a dorp proto tcp dport 23' "$WORK/broken/firewall.rules"
typo_line=6
printf '# site networks\nipvar HOME_NET [10.0.0.0/8,$CORP]\nipvar CORP $HOME_NET\n' > "$WORK/broken/vars.conf"
echo "variables.file = vars.conf" >> "$WORK/broken/ips.properties"
echo "hash.feild = ipv4_dst" >> "$WORK/broken/loadbalancer.properties"
rc=0; (cd "$WORK/broken" && "$OPENBOX" check "$WORK/apps") > "$WORK/seeded.out" 2>&1 || rc=$?
expect "rule typo" 1 "^$WORK/broken/firewall.rules:$typo_line: unknown action 'dorp'" "$WORK/seeded.out" $rc
expect "ipvar cycle" 1 "^$WORK/broken/vars.conf:2: variable HOME_NET refers to itself \(HOME_NET -> CORP -> HOME_NET\)$" \
  "$WORK/seeded.out" $rc
expect "unknown key" 1 "^app loadbalancer: loadbalancer.properties: unknown key 'hash.feild' \(known keys: .*hash.field" \
  "$WORK/seeded.out" $rc
[ "$(grep -c . "$WORK/seeded.out")" -le 5 ] || { cat "$WORK/seeded.out" >&2; fail "seeded: more than one line per problem"; }

# 3. a pattern Java accepts and Hyperscan refuses, found by the OBI's compile (./openbox check FILE)
cp "$SAMPLE/ips.rules" "$WORK/hs.rules"
echo 'alert tcp any any -> any 80 (msg:"grapheme"; pcre:"/\Xadmin/"; sid:990001;)' >> "$WORK/hs.rules"
hs_line=$(wc -l < "$WORK/hs.rules")
printf 'rules.file = hs.rules\n' > "$WORK/ips.properties"
rc=0; (cd "$WORK" && "$OPENBOX" check "$WORK/ips.properties") > "$WORK/hs.out" 2>&1 || rc=$?
expect "Hyperscan-refused pattern" 1 "^$WORK/hs.rules:$hs_line: block 'signatures' .*\(BAD_REQUEST/BAD_PAYLOAD_MATCH\)$" \
  "$WORK/hs.out" $rc

# 3b. a per-application limit: the same one line as the controller's refusal
rc=0; (cd "$SAMPLE" && "$OPENBOX" check "$WORK/apps" --openbox.limits.apps.ips.max-patterns=2) > "$WORK/limit.out" 2>&1 \
  || rc=$?
expect "limit exceeded" 1 "^app ips: [0-9]+ payload patterns exceed openbox.limits.apps.ips.max-patterns=2$" \
  "$WORK/limit.out" $rc

# 4. front-end flags: one line, no JVM started
rc=0; "$OPENBOX" controller --topology "$WORK/none.json" > "$WORK/topo.out" 2>&1 || rc=$?
expect "missing topology" 2 "^openbox: --topology $WORK/none.json: no such file$" "$WORK/topo.out" $rc
echo '{"segments": [' > "$WORK/bad.json"
rc=0; "$OPENBOX" controller --topology "$WORK/bad.json" > "$WORK/topo2.out" 2>&1 || rc=$?
expect "topology not JSON" 2 "^openbox: --topology $WORK/bad.json: not valid JSON" "$WORK/topo2.out" $rc
rc=0; "$OPENBOX" controller --port 70000 > "$WORK/port.out" 2>&1 || rc=$?
expect "bad port" 2 "^openbox: --port '70000' is not a port number" "$WORK/port.out" $rc
rc=0; "$OPENBOX" controller --prot 23700 > "$WORK/opt.out" 2>&1 || rc=$?
expect "unknown option" 2 "^openbox: unknown controller option '--prot'" "$WORK/opt.out" $rc
grep -q '^usage: ./openbox controller' "$WORK/opt.out" || fail "unknown option: no usage line"
rc=0; "$OPENBOX" controller --apps "$WORK/nonexistent" > "$WORK/apps.out" 2>&1 || rc=$?
expect "missing apps directory" 2 "^openbox: --apps $WORK/nonexistent: no such directory$" "$WORK/apps.out" $rc

# 5. port in use: the front end refuses at once; the controller itself says so in one line
busy=$(free_port)
python3 -c "import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', $busy)); s.listen(); time.sleep(120)" &
PIDS+=($!)
sleep 0.5
rc=0; "$OPENBOX" controller --port "$busy" > "$WORK/busy.out" 2>&1 || rc=$?
expect "port in use (front end)" 2 "^openbox: controller: port $busy is already in use$" "$WORK/busy.out" $rc
jar=$(ls "$ROOT"/obc/server/target/openbox-controller-*.jar | grep -v original | head -1)
# (plain HTTP said explicitly: the port check is what is tested, not the certificates)
creds=$(python3 "$ROOT/apps/demo/credentials.py" ensure)
rc=0; java -jar "$jar" --port "$busy" --openbox.insecure=true "--spring.config.additional-location=file:$creds" \
  > "$WORK/busy2.out" 2>&1 || rc=$?
expect "port in use (controller)" 1 "^openbox controller: port $busy is already in use$" "$WORK/busy2.out" $rc
grep -q '^\s*at ' "$WORK/busy2.out" && { cat "$WORK/busy2.out" >&2; fail "port in use: stack trace printed"; }

# 5b. no management credentials: the controller refuses to start rather than run an open API
port=$(free_port)
# (plain HTTP said explicitly: without it the missing certificates are refused first)
rc=0; java -jar "$jar" --port "$port" --openbox.insecure=true > "$WORK/nocreds.out" 2>&1 || rc=$?
expect "no credentials" 1 "^openbox controller: openbox.security: no users or tokens configured" "$WORK/nocreds.out" $rc
grep -q '^\s*at ' "$WORK/nocreds.out" && { cat "$WORK/nocreds.out" >&2; fail "no credentials: stack trace printed"; }

# 6. fail closed: a broken application stops the controller; --allow-failed-apps runs without it
rc=0; (cd "$WORK/broken" && timeout 90 "$OPENBOX" controller --port "$port" --apps "$WORK/apps") \
  > "$WORK/closed.out" 2>&1 || rc=$?
expect "broken app stops the controller" 1 "^$WORK/broken/firewall.rules:$typo_line: unknown action 'dorp'" "$WORK/closed.out" $rc
grep -q '^\s*at ' "$WORK/closed.out" && { cat "$WORK/closed.out" >&2; fail "fail closed: stack trace printed"; }

(cd "$WORK/broken" && exec "$OPENBOX" controller --port "$port" --apps "$WORK/apps" --allow-failed-apps) \
  > "$WORK/open.out" 2>&1 &
PIDS+=($!)
ctl=$!
up=0
for _ in $(seq 1 240); do
  kill -0 "$ctl" 2>/dev/null || { tail -20 "$WORK/open.out" >&2; fail "--allow-failed-apps: the controller exited"; }
  if curl -fsS --cacert "$OPENBOX_PKI/ca.crt" "https://127.0.0.1:$port/actuator/health" 2>/dev/null \
    | grep -q '"status":"UP"'; then up=1; break; fi
  sleep 0.25
done
[ "$up" = 1 ] || fail "--allow-failed-apps: controller not UP within 60 s"
# (Java's dual-stack socket shows the IPv4 loopback as ::ffff:127.0.0.1)
[ "$(ss -Hltn "sport = :$port" | awk '{print $4}' | sed 's/^\[::ffff:\(.*\)\]/\1/' | sort -u)" = "127.0.0.1:$port" ] \
  || { ss -Hltn "sport = :$port" >&2; fail "the controller does not listen on 127.0.0.1 only"; }
ok "the controller started by ./openbox listens on 127.0.0.1:$port only"
code=$(curl -sS --cacert "$OPENBOX_PKI/ca.crt" -o "$WORK/anon.out" -w '%{http_code}' "https://127.0.0.1:$port/api/apps")
[ "$code" = 401 ] && grep -q '"error"' "$WORK/anon.out" || fail "/api/apps without credentials: HTTP $code"
ok "/api/apps without credentials: 401 $(cat "$WORK/anon.out")"
python3 "$ROOT/apps/demo/credentials.py" header > "$WORK/auth.header"
chmod 600 "$WORK/auth.header"
apps_json=$(curl -fsS --cacert "$OPENBOX_PKI/ca.crt" -H @"$WORK/auth.header" "https://127.0.0.1:$port/api/apps")
python3 - "$apps_json" <<'PY' || fail "--allow-failed-apps: unexpected application states: $apps_json"
import json, sys
apps = {a["name"]: a for a in json.loads(sys.argv[1])}
assert apps["firewall"]["state"] == "REFUSED", apps["firewall"]
assert "unknown action 'dorp'" in apps["firewall"]["error"], apps["firewall"]
assert apps["webcache"]["state"] == "RUNNING", apps["webcache"]
PY
ok "--allow-failed-apps: controller UP, firewall REFUSED, webcache RUNNING"

echo "config_check: all checks passed in $(( $(date +%s) - start )) s"
