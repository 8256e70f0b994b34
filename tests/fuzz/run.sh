#!/usr/bin/env bash
# libFuzzer run (ASan + UBSan) of what the OBI reads from sockets, files and packets: the
# message decoder (fuzz_decode), the one-pass body parse against depth scan + parse
# (fuzz_body_parse), the header-match parser (fuzz_header_match), the graph
# compiler with the real blocks (fuzz_graph), the pcap reader with FromDump (fuzz_pcap) and
# the blocks that parse or rewrite packet contents (fuzz_block_packet: gzip, NSH, HTTP,
# rewriters, payload classifiers), seeded from protocol/vectors, the small pcaps of the
# shared data and frames made below.
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]      default 15 (90 s in all: six targets)
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
ALL_TARGETS=(fuzz_decode fuzz_body_parse fuzz_header_match fuzz_graph fuzz_pcap fuzz_block_packet)
TARGETS=(${OBI_FUZZ_TARGETS:-${ALL_TARGETS[*]}})   # OBI_FUZZ_TARGETS: a space-separated subset
cmake --build "$BUILD" --target "${TARGETS[@]}" -j2 >/dev/null

# Seeds from the protocol's test vectors: every message (valid or not) as its body, every
# header-match value as FIELD=VALUE, every graph of a SetProcessingGraphRequest; and the
# pcaps of the shared data under 64 KiB.
SEEDS="$BUILD/seeds"
rm -rf "$SEEDS"
for t in "${ALL_TARGETS[@]}"; do mkdir -p "$SEEDS/$t"; done
mkdir -p "$BUILD/findings"
DATA="${OPENBOX_DATA:-$ROOT/../shared/data}"
python3 - "$ROOT/protocol/vectors" "$SEEDS" "$DATA" <<'PY'
import json, pathlib, sys
vectors, seeds, data = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
for i, f in enumerate(sorted((vectors / "messages").rglob("*.json"))):
    v = json.loads(f.read_text())
    body = v["raw"] if "raw" in v else json.dumps(v.get("message"))
    (seeds / "fuzz_decode" / f"v{i}").write_text(body)
    (seeds / "fuzz_body_parse" / f"v{i}").write_text(body)
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

# fuzz_block_packet: selector byte (the block, modulo the target's table) + frame.
import gzip, struct
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack(f"!{len(b)//2}H", b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
def tcp4(payload, sport=40000, dport=80, vlan=None):
    tcp = struct.pack("!HHIIBBHHH", sport, dport, 1, 1, 5 << 4, 0x18, 65535, 0, 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0, 64, 6, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = bytes.fromhex("020000000002020000000001")
    eth += (struct.pack("!HH", 0x8100, vlan) if vlan is not None else b"") + b"\x08\x00"
    return eth + ip + tcp
def tcp6(payload):
    tcp = struct.pack("!HHIIBBHHH", 40000, 80, 1, 1, 5 << 4, 0x18, 65535, 0, 0) + payload
    ip = struct.pack("!IHBB16s16s", 6 << 28, len(tcp), 6, 64, bytes(15) + b"\1", bytes(15) + b"\2")
    return bytes.fromhex("020000000002020000000001") + b"\x86\xdd" + ip + tcp
def nsh(inner, entries):
    tlvs = b""
    for key, value in entries:
        k = key.encode()
        v = bytes([len(k)]) + k + (struct.pack("!q", value) if isinstance(value, int) else value.encode())
        tlvs += struct.pack("!HBB", 0xfff6, 1 if isinstance(value, int) else 2, len(v)) + v + bytes(-len(v) % 4)
    length = (8 + len(tlvs)) // 4
    base = struct.pack("!HBB", (0 << 14) | (63 << 6) | length, 2, 3)
    return inner[:12] + b"\x89\x4f" + base + struct.pack("!I", 42 << 8 | 7) + tlvs + inner
body = b"<html><body>" + b"hello world, " * 60 + b"</body></html>"
frames = [
    tcp4(b"GET /a HTTP/1.1\r\nHost: example.org\r\n\r\n"),
    tcp4(b"GET /etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", vlan=5),
    tcp4(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: "
         + str(len(gzip.compress(body))).encode() + b"\r\n\r\n" + gzip.compress(body), sport=80, dport=40000),
    tcp4(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + str(len(body)).encode()
         + b"\r\n\r\n" + body, sport=80, dport=40000),
    tcp4(b"HTTP/1.1 200 OK\r\nContent-Type: application/javascript\r\n\r\n/* c */ var s = '\\x41\\u0042';  // x\n",
         sport=80, dport=40000),
    tcp6(b"GET /a HTTP/1.1\r\nHost: example.org\r\n\r\n"),
]
frames.append(nsh(frames[0], [("app", "ips"), ("mark", 3)]))
frames.append(nsh(frames[2], [("k", 1)]))
m = 0
for f in frames:
    for selector in range(32):
        (seeds / "fuzz_block_packet" / f"f{m}").write_bytes(bytes([selector]) + f)
        m += 1
PY

status=0
for target in "${TARGETS[@]}"; do
  corpus="$BUILD/corpus/$target"
  mkdir -p "$corpus"
  case $target in fuzz_pcap) max_len=65536 ;; fuzz_graph) max_len=32768 ;; fuzz_block_packet) max_len=9217 ;; *) max_len=8192 ;; esac
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
