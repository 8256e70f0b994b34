#!/usr/bin/env bash
# libFuzzer run (ASan + UBSan) of what the OBI reads from sockets and files: the message
# decoder (fuzz_decode), the header-match parser (fuzz_header_match), the graph compiler
# with the real blocks (fuzz_graph) and the pcap reader with FromDump (fuzz_pcap), seeded
# from protocol/vectors and the small pcaps of the shared data.
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]      default 15 (60 s in all)
#
# ./openbox test runs it for 6 s per target; a longer run (e.g. 600) finds more, and
# every input it adds to build/fuzz/corpus seeds the next run.
# Needs clang and its libFuzzer runtime; as root with apt-get it installs clang-14 and
# libclang-rt-14-dev when they are missing. Builds in build/fuzz (-DOBI_FUZZ=ON), keeps
# each target's corpus in build/fuzz/corpus/<target>, writes a crashing input to
# build/fuzz/findings/ and exits 1 when a target finds one.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SECS="${1:-15}"
[[ $SECS =~ ^[0-9]+$ ]] || { echo "run.sh: SECONDS_PER_TARGET must be a whole number, got '$SECS'" >&2; exit 2; }
BUILD="$ROOT/build/fuzz"

have_fuzzer() {
  CXX="$(command -v clang++ || command -v clang++-14 || true)"
  CC="$(command -v clang || command -v clang-14 || true)"
  [ -n "$CXX" ] && [ -n "$CC" ] && compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null
}
if ! have_fuzzer; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "run.sh: installing clang-14 and libclang-rt-14-dev" >&2
    apt-get install -y --no-install-recommends clang-14 libclang-rt-14-dev >/dev/null
  fi
  have_fuzzer || { echo "run.sh: clang with libFuzzer is needed (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; }
fi

cmake -S "$ROOT/obi" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOBI_FUZZ=ON \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" >/dev/null
TARGETS=(fuzz_decode fuzz_header_match fuzz_graph fuzz_pcap)
cmake --build "$BUILD" --target "${TARGETS[@]}" -j2 >/dev/null

# Seeds from the protocol's test vectors: every message (valid or not) as its body, every
# header-match value as FIELD=VALUE, every graph of a SetProcessingGraphRequest; and the
# pcaps of the shared data under 64 KiB.
SEEDS="$BUILD/seeds"
rm -rf "$SEEDS"
for t in "${TARGETS[@]}"; do mkdir -p "$SEEDS/$t"; done
mkdir -p "$BUILD/findings"
DATA="${OPENBOX_DATA:-$ROOT/../shared/data}"
python3 - "$ROOT/protocol/vectors" "$SEEDS" "$DATA" <<'PY'
import json, pathlib, sys
vectors, seeds, data = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
for i, f in enumerate(sorted((vectors / "messages").rglob("*.json"))):
    v = json.loads(f.read_text())
    body = v["raw"] if "raw" in v else json.dumps(v.get("message"))
    (seeds / "fuzz_decode" / f"v{i}").write_text(body)
    m = v.get("message")
    if isinstance(m, dict) and "blocks" in m:
        graph = {"blocks": m.get("blocks"), "connectors": m.get("connectors", [])}
        (seeds / "fuzz_graph" / f"v{i}").write_text(json.dumps(graph))
for p in sorted(data.glob("pcap/*.pcap")) if data.is_dir() else []:
    if p.stat().st_size <= 65536:
        (seeds / "fuzz_pcap" / p.name).write_bytes(p.read_bytes())
n = 0
for f in sorted((vectors / "header-match").glob("*.json")):
    for v in json.loads(f.read_text()):
        if isinstance(v, dict) and "field" in v and isinstance(v.get("value"), str):
            (seeds / "fuzz_header_match" / f"v{n}").write_text(v["field"] + "=" + v["value"][:4096])
            n += 1
        elif isinstance(v, dict) and isinstance(v.get("match"), dict):
            (seeds / "fuzz_header_match" / f"v{n}").write_text(json.dumps(v["match"]))
            n += 1
PY

status=0
for target in "${TARGETS[@]}"; do
  corpus="$BUILD/corpus/$target"
  mkdir -p "$corpus"
  case $target in fuzz_pcap) max_len=65536 ;; fuzz_graph) max_len=32768 ;; *) max_len=8192 ;; esac
  echo "run.sh: $target for ${SECS} s"
  if ! "$BUILD/$target" "$corpus" "$SEEDS/$target" -max_total_time="$SECS" -max_len=$max_len -timeout=10 \
       -rss_limit_mb=2048 -artifact_prefix="$BUILD/findings/$target-" -print_final_stats=1 \
       >"$BUILD/$target.log" 2>&1; then
    echo "run.sh: $target found a failing input (see $BUILD/$target.log, $BUILD/findings/)" >&2
    grep -m3 -E "ERROR|SUMMARY" "$BUILD/$target.log" >&2 || true
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$BUILD/$target.log" | tr '\n' ' '
    echo
  fi
done
exit $status
