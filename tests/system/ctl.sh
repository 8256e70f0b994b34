#!/usr/bin/env bash
# `./openbox ctl` against the real controller (firewall and ips) and a real OBI (dpid 5 on the
# sample trace) over mutual TLS with a fresh CA: every command's table and --json output
# compared with the management API, alerts --follow, and the error cases with their exit
# codes. The checks are in ctl_checks.py; this script makes the certificates and the work
# directory.
#
# Needs python3, java, openssl; builds the OBI and the controller when missing.
# Work files and logs: build/systest/ctl/ (or $OBX_SYSTEST_OUT). About 40 s.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${OBX_SYSTEST_OUT:-$ROOT/build/systest/ctl}"
PKI="$WORK/pki"

fail() { printf 'ctl: FAIL: %s\n' "$*" >&2; exit 1; }
for c in python3 java openssl; do command -v "$c" >/dev/null || fail "'$c' is not installed"; done
if [ ! -x "$ROOT/build/obi/obi" ] || ! ls "$ROOT"/obc/server/target/openbox-controller-*.jar >/dev/null 2>&1 \
   || ! ls "$ROOT"/apps/firewall/target/*.jar >/dev/null 2>&1; then
  echo "ctl: building (OBI, controller or applications missing)"
  "$ROOT/openbox" build
fi

rm -rf "$WORK"; mkdir -p "$WORK"
echo "ctl: certificates in $PKI"
"$ROOT/openbox" pki --dir "$PKI" controller 2>/dev/null || fail "cannot make the certificates"
"$ROOT/openbox" pki --dir "$PKI" obi 5 --ip 127.0.0.1 2>/dev/null || fail "cannot make the certificates"
"$ROOT/openbox" pki --dir "$PKI/other" controller 2>/dev/null || fail "cannot make the other CA"

OPENBOX_PKI="$PKI" OPENBOX_ROOT="$ROOT" timeout -k 10 300 \
  python3 "$ROOT/tests/system/ctl_checks.py" --pki "$PKI" --other-pki "$PKI/other" --work "$WORK" \
  || { rc=$?; echo "ctl: FAILED (exit $rc); logs in $WORK" >&2
       for f in "$WORK"/controller.log "$WORK"/obi-5-*.log; do
         [ -f "$f" ] && { echo "---- last lines of $(basename "$f")" >&2; tail -n 12 "$f" >&2; }; done
       exit 1; }
