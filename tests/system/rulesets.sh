#!/usr/bin/env bash
# Every shipped rule set enforced end to end: the real controller jar with the real
# applications and real OBIs (build/obi/obi or $OBI) reading pcap traces.
#
#   tests/system/rulesets.sh [--only rule-sets,more-rule-sets,fw1-10000,samples]   (~3 min; no root)
#
#   ips-web        the IPS with ../shared/data/snort-web.rules + snort-vars.conf on
#                  pcap/generated/http-trace.pcap (20,000 packets)
#   firewall-4560  the firewall with ClassBench fw-4560 on fw-4560.trace.pcap (45,607)
#   ips-http       the IPS with snort-http.rules + snort-vars.conf on http-trace.pcap
#   firewall-acl1  the firewall with ClassBench acl1-1000, every rule alerting, on the
#                  first 4,000 lines of acl1-1000.trace turned into frames
#   firewall-fw1   the firewall with ClassBench fw1-10000 on the first 10,000 lines of
#                  fw1-10000.trace turned into frames
#   samples        the firewall, IPS and load balancer with apps/demo/sample/*.properties, chained
#                  on one OBI, on the sample trace (apps/demo/sample/make_trace.py)
# For each OBI the graph it runs is also run over its trace by the merge module's
# reference interpreter (tests/system/RulesetReference.java), and alerts per application
# at the controller, per-rule classifier counts and packets per output device must equal
# the reference's; packets in = out + dropped = the trace's packets. Checks and results:
# tests/system/rulesets.py. Work files: build/systest/rulesets (kept for inspection).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/system"
DATA="${OPENBOX_DATA:-$ROOT/../shared/data}"
OBI="${OBI:-$ROOT/build/obi/obi}"
WORK="${RULESETS_WORK:-$ROOT/build/systest/rulesets}"
ONLY="rule-sets,more-rule-sets,fw1-10000,samples"
while [ $# -gt 0 ]; do
  case "$1" in
    --only) ONLY="$2"; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "rulesets: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
die() { echo "rulesets: $*" >&2; exit 1; }
for c in python3 java; do command -v "$c" >/dev/null || die "'$c' is not installed"; done
for f in snort-web.rules snort-http.rules snort-vars.conf fw-4560.classbench fw-4560.trace.pcap acl1-1000.classbench \
         acl1-1000.trace fw1-10000.classbench fw1-10000.trace pcap/generated/http-trace.pcap; do
  [ -f "$DATA/$f" ] || die "missing $DATA/$f (shared data; set OPENBOX_DATA)"
done
if [ ! -x "$OBI" ] || ! ls "$ROOT"/obc/server/target/openbox-controller-*.jar >/dev/null 2>&1 \
   || [ ! -d "$ROOT/obc/merge/target/lib" ] || ! ls "$ROOT"/apps/ips/target/*.jar >/dev/null 2>&1; then
  echo "rulesets: building (OBI, controller, applications or merge module missing)"
  "$ROOT/openbox" build
fi
[ -x "$OBI" ] || die "no OBI binary at $OBI"
mkdir -p "$WORK"
export OPENBOX_OBI="$OBI"
exec python3 "$HERE/rulesets.py" --data "$DATA" --work "$WORK" --only "$ONLY" \
  --merge-cp "$ROOT/obc/merge/target/classes:$ROOT/obc/merge/target/lib/*"
