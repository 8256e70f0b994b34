#!/usr/bin/env bash
# Attacks on the control channel's mutual TLS, against the real controller (firewall app)
# and a real OBI (dpid 5) on free loopback ports: requests to the OBI without a client
# certificate, with another CA's, with an OBI's (obi-7) and with an expired one are refused
# and its graph stays; at the controller a certificate-less Hello and a Hello for dpid 5
# with obi-6's certificate are refused while OBI 5 stays UP. The checks are in
# tls_attacks.py; this script makes the certificates (a fresh CA with `openbox pki`,
# another CA, an expired certificate) and the work directory.
#
# Needs python3, java, openssl; builds the OBI and the controller when missing.
# Work files and logs: build/systest/tls_attacks/ (or $OBX_SYSTEST_OUT). About 30 s.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${OBX_SYSTEST_OUT:-$ROOT/build/systest/tls_attacks}"
PKI="$WORK/pki"
MODULE="$ROOT/build/obi/sample_module.so"

fail() { printf 'tls_attacks: FAIL: %s\n' "$*" >&2; exit 1; }
for c in python3 java openssl; do command -v "$c" >/dev/null || fail "'$c' is not installed"; done
if [ ! -x "$ROOT/build/obi/obi" ] || ! ls "$ROOT"/obc/server/target/openbox-controller-*.jar >/dev/null 2>&1; then
  echo "tls_attacks: building (OBI or controller missing)"
  "$ROOT/openbox" build
fi
[ -f "$MODULE" ] || cmake --build "$ROOT/build/obi" --target obi_sample_module >/dev/null \
  || fail "cannot build the sample custom module"

rm -rf "$WORK"; mkdir -p "$WORK"
echo "tls_attacks: certificates in $PKI"
"$ROOT/openbox" pki --dir "$PKI" controller 2>/dev/null
for d in 5 6 7; do "$ROOT/openbox" pki --dir "$PKI" obi "$d" --ip 127.0.0.1 2>/dev/null; done
"$ROOT/openbox" pki --dir "$PKI/other" controller 2>/dev/null   # another CA, the controller's name
# the controller's name from the right CA, expired since yesterday
( cd "$PKI" && umask 077
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out expired.key 2>/dev/null
  openssl req -new -key expired.key -subj "/CN=openbox-controller" -out expired.csr
  printf 'extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n' > expired.ext
  openssl x509 -req -in expired.csr -CA ca.crt -CAkey ca.key -days -1 -extfile expired.ext \
    -out expired.crt 2>/dev/null ) || fail "openssl could not make the expired certificate"
verdict=$(openssl verify -CAfile "$PKI/ca.crt" "$PKI/expired.crt" 2>&1 || true)
[[ $verdict == *"certificate has expired"* ]] || fail "the expired certificate is not expired: $verdict"

OPENBOX_PKI="$PKI" OPENBOX_ROOT="$ROOT" timeout -k 10 240 \
  python3 "$ROOT/tests/system/tls_attacks.py" --pki "$PKI" --work "$WORK" --module "$MODULE" \
  || { rc=$?; echo "tls_attacks: FAILED (exit $rc); logs in $WORK" >&2
       for f in controller obi-5; do [ -f "$WORK/$f.log" ] && { echo "---- last lines of $f.log" >&2; tail -n 12 "$WORK/$f.log" >&2; }; done
       exit 1; }
