#!/usr/bin/env bash
# Custom-module signing through the real front end and the real OBI binary:
#   - `./openbox sign-module` reproduces the shared test vector's signature
#     (protocol/vectors/module-signature/ed25519.json) with its test key;
#   - a fresh key pair signs the sample module; `./openbox verify-module` (the OBI's own
#     check) accepts it, and refuses it under another name or version, with a changed byte,
#     against another key's trust list, and with a damaged signature, each with its reason;
#   - `./openbox obi` creates the controller's key pair when missing and starts the OBI
#     trusting it; the OBI refuses an unreadable trust list and warns for
#     --allow-unsigned-modules.
# Needs: build/obi/obi and sample_module.so (./openbox build). Work files go to
# build/systest/module_signing (kept after a failure). A few seconds; no root.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${MODULE_SIGNING_WORK:-$ROOT/build/systest/module_signing}"
OPENBOX="$ROOT/openbox"
OBI="$ROOT/build/obi/obi"
SO="$ROOT/build/obi/sample_module.so"
VEC="$ROOT/protocol/vectors/module-signature"

fail() { echo "module_signing: FAIL: $*" >&2; exit 1; }
ok() { echo "module_signing: ok: $*"; }
[ -x "$OBI" ] || fail "no OBI binary at build/obi/obi (./openbox build)"
[ -f "$SO" ] || fail "no sample module at $SO (./openbox build)"

PIDS=()
# each background command runs in its own process group (setsid): a front end stopped while it
# builds takes its build with it
cleanup() { for p in "${PIDS[@]}"; do kill -- "-$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM
rm -rf "$WORK"
mkdir -p "$WORK"

# the vector, signed by the front end
base64 -d <<<"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["module_content"])' "$VEC/ed25519.json")" \
  > "$WORK/vector.bin"
"$OPENBOX" sign-module --key "$VEC/test-signing.key" --name sampler --version 1.2.0 -o "$WORK/vector.sig" \
  "$WORK/vector.bin" 2>/dev/null
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["signature"])' "$VEC/ed25519.json")
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["signature"])' "$WORK/vector.sig")
[ "$got" = "$want" ] || fail "sign-module gave $got for the test vector, expected $want"
ok "sign-module reproduces the test vector's signature"

# a fresh key: sign, then verify with the OBI's check
openssl genpkey -algorithm ed25519 -out "$WORK/k.key" 2>/dev/null
openssl pkey -in "$WORK/k.key" -pubout -out "$WORK/k.pub"
"$OPENBOX" sign-module --key "$WORK/k.key" --name sample --version 2.0 -o "$WORK/s.sig" "$SO" 2>/dev/null
out=$("$OPENBOX" verify-module --trust "$WORK/k.pub" --sig "$WORK/s.sig" "$SO") || fail "signed module refused"
[[ $out == *"good signature"*'"sample" version "2.0"'* ]] || fail "unexpected verify output: $out"
ok "verify-module accepts the signed module: $out"

# expect_refused WHAT PATTERN ARGS...: verify-module exits 1 with PATTERN in its message
expect_refused() {
  local what=$1 pattern=$2; shift 2
  local rc=0 msg
  msg=$("$OPENBOX" verify-module "$@" 2>&1) || rc=$?
  [ "$rc" = 1 ] || fail "$what: exit $rc, expected 1 ($msg)"
  grep -q -- "$pattern" <<<"$msg" || fail "$what: message '$msg' lacks '$pattern'"
  ok "$what refused: $msg"
}
expect_refused "another name" "does not match" --trust "$WORK/k.pub" --sig "$WORK/s.sig" --name sample2 "$SO"
expect_refused "another version" "does not match" --trust "$WORK/k.pub" --sig "$WORK/s.sig" --version 2.1 "$SO"
cp "$SO" "$WORK/changed.so"
printf '\001' | dd of="$WORK/changed.so" bs=1 seek=200 conv=notrunc status=none
expect_refused "a changed byte" "does not match" --trust "$WORK/k.pub" --sig "$WORK/s.sig" "$WORK/changed.so"
expect_refused "an untrusted key" "does not trust" --trust "$VEC/untrusted.pub" --sig "$WORK/s.sig" "$SO"
sed 's/"signature": "..../"signature": "AAAA/' "$WORK/s.sig" > "$WORK/damaged.sig"
cmp -s "$WORK/s.sig" "$WORK/damaged.sig" && fail "could not damage the signature"
expect_refused "a damaged signature" "does not match" --trust "$WORK/k.pub" --sig "$WORK/damaged.sig" "$SO"
python3 - "$WORK/s.sig" "$WORK/unsigned.sig" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); del s["signature"]; json.dump(s, open(sys.argv[2], "w"))
PY
expect_refused "an unsigned module" "it is not signed" --trust "$WORK/k.pub" --sig "$WORK/unsigned.sig" "$SO"

# ./openbox obi: the key pair is created and trusted; a bad trust list stops the OBI
export OPENBOX_PKI="$WORK/pki"
setsid "$OPENBOX" obi --dpid 901 --listen 127.0.0.1:0 --controller http://127.0.0.1:9 --insecure > "$WORK/obi.log" 2>&1 &
PIDS+=($!)
# the front end first brings the build up to date (up to 10 min), then creates the keys and starts the OBI
for _ in $(seq 6000); do grep -q "listening on" "$WORK/obi.log" && break; sleep 0.1; done
grep -q "listening on" "$WORK/obi.log" || fail "the OBI did not start: $(tail -3 "$WORK/obi.log")"
[ -f "$WORK/pki/module-signing.key" ] && [ -f "$WORK/pki/module-signing.pub" ] || fail "no key pair in $WORK/pki"
[ "$(stat -c %a "$WORK/pki/module-signing.key")" = 600 ] || fail "module-signing.key is not mode 600"
kill -0 "${PIDS[0]}" 2>/dev/null || fail "the OBI stopped: $(tail -3 "$WORK/obi.log")"
ok "./openbox obi created $WORK/pki/module-signing.{key,pub} and runs trusting it"
rc=0; msg=$("$OBI" --listen 127.0.0.1:0 --insecure --module-trust "$WORK/k.key" --quiet 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -q "k.key: no PEM public key" <<<"$msg" || fail "private key as trust list: exit $rc: $msg"
ok "a private key as trust list stops the OBI: $msg"
setsid "$OBI" --listen 127.0.0.1:0 --insecure --allow-unsigned-modules --quiet > "$WORK/dev.log" 2>&1 &
PIDS+=($!)
sleep 1
grep -q "WARN: --allow-unsigned-modules" "$WORK/dev.log" || fail "no WARN for --allow-unsigned-modules"
ok "--allow-unsigned-modules warns: $(head -1 "$WORK/dev.log")"
echo "module_signing: all checks passed"
