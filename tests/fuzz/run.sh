#!/usr/bin/env bash
# Short libFuzzer run (ASan + UBSan) of the OBI's message decoder (fuzz_decode) and
# header-match parser (fuzz_header_match), seeded from protocol/vectors.
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]      default 15 (30 s in all)
#
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
cmake --build "$BUILD" --target fuzz_decode fuzz_header_match -j2 >/dev/null

# Seeds from the protocol's test vectors: every message (valid or not) as its body, and
# every header-match value as FIELD=VALUE.
SEEDS="$BUILD/seeds"
rm -rf "$SEEDS"
mkdir -p "$SEEDS/fuzz_decode" "$SEEDS/fuzz_header_match" "$BUILD/findings"
python3 - "$ROOT/protocol/vectors" "$SEEDS" <<'PY'
import json, pathlib, sys
vectors, seeds = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for i, f in enumerate(sorted((vectors / "messages").rglob("*.json"))):
    v = json.loads(f.read_text())
    body = v["raw"] if "raw" in v else json.dumps(v.get("message"))
    (seeds / "fuzz_decode" / f"v{i}").write_text(body)
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
for target in fuzz_decode fuzz_header_match; do
  corpus="$BUILD/corpus/$target"
  mkdir -p "$corpus"
  echo "run.sh: $target for ${SECS} s"
  if ! "$BUILD/$target" "$corpus" "$SEEDS/$target" -max_total_time="$SECS" -max_len=8192 -timeout=5 \
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
