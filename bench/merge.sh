#!/usr/bin/env bash
# Merge benchmark: merge time against merged-graph size (firewall x load balancer chain,
# growing rule counts). Prints {"connectors": N, "blocks": N, "rules": N, "ms": X} per size
# (median of several runs) and the fitted growth exponent of ms against connectors.
#
#   bench/merge.sh [--sizes n1,n2,...] [--runs R] [--json]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MOD="$ROOT/obc/merge"
newest() { find "$@" -type f -printf '%T@\n' 2>/dev/null | sort -n | tail -1 | cut -d. -f1; }
if [ ! -d "$MOD/target/classes" ] || [ ! -d "$MOD/target/lib" ] \
   || [ "$(newest "$MOD/src/main" "$MOD/pom.xml" "$ROOT/protocol/src/main" "$ROOT/blocks/catalogue/src/main")" -gt \
        "$(newest "$MOD/target/classes")" ]; then
  echo "[openbox] building the merge module" >&2
  (cd "$ROOT" && mvn -B -q -pl obc/merge -am install -DskipTests) >&2 || { echo "bench merge: build failed" >&2; exit 2; }
fi
exec java -Xss16m -cp "$MOD/target/classes:$MOD/target/lib/*" org.openbox.merge.bench.MergeBench "$@"
