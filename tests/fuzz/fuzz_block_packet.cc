// libFuzzer target: the blocks that parse or rewrite what a packet carries, on arbitrary
// frames. The first input byte picks the block (modulo the table below), the rest is the
// frame, pushed through the real block in the test harness. Every packet must leave on
// an output or be dropped, every buffer must return to the pool, and every frame that
// leaves must fit its buffer with its parsed offsets inside it; a crash, a sanitizer
// report or a broken invariant is a finding.
//
// The table covers the payload parsers (gzip inflate and deflate of HTTP bodies, NSH
// decapsulation, the HTTP cache's request parser, the normalizers), the header
// rewriters and the payload classifiers. Seeds (tests/fuzz/run.sh) are real frames with
// every selector byte: HTTP requests and gzip responses, NSH frames as
// EncapsulateMetadata writes them, VLAN-tagged and IPv6 frames.
//
//   build and run: tests/fuzz/run.sh
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "engine/testing.hh"

namespace {

struct Case {
  const char* type;
  const char* config;
};

// Blocks the OBI may not have registered are skipped when the target starts.
constexpr Case kCases[] = {
    {"GzipDecompressor", R"({"max_size": 4096})"},
    {"GzipCompressor", R"({"level": 1, "min_size": 16})"},
    {"DecapsulateMetadata", "{}"},
    {"EncapsulateMetadata", R"({"spi": 42, "si": 7})"},
    {"HttpCacheResponder", R"({"entries": [{"path": "/a", "content_type": "text/plain", "body": "aGk="}], "mss": 64})"},
    {"HtmlNormalizer", "{}"},
    {"JsNormalizer", "{}"},
    {"Store", R"({"key": "fuzz", "soft_timeout": 0, "hard_timeout": 60, "packet_size": -1})"},
    {"Restore", R"({"key": "fuzz", "protocol": "payload"})"},
    {"Restore", R"({"key": "fuzz", "offset": 20})"},
    {"SetTimestampDelta", R"({"range": "NOW", "metadata_key": "d"})"},
    {"BeginTransaction", R"({"name": "t"})"},
    {"VlanDecapsulate", "{}"},
    {"VlanEncapsulate", R"({"vlan_vid": 5})"},
    {"DecIpTtl", "{}"},
    {"NetworkDirectionSwap", "{}"},
    {"NetworkHeaderFieldsRewriter", R"({"ipv4_ttl": 9, "tcp_dst": 8080})"},
    {"Ipv4AddressTranslator", R"({"input_spec": ["pattern 10.0.0.1 1024-65535 - - 0 1", "drop"]})"},
    {"ProtocolAnalyzer",
     R"({"protocols": ["http", "https", "ftp", "smtp", "dns", "icmp", "tcp", "udp", "arp", "ipv6"]})"},
    {"StringClassifier", R"({"strings": ["cmd.exe", "/etc/passwd", "GET "]})"},
    {"RegexClassifier", R"({"pattern": ["GET /[a-z]+", "passwd"], "payload_only": true})"},
    {"HeaderPayloadClassifier",
     R"({"match": [{"header_match": {"ETH_TYPE": "0x0800", "IP_PROTO": 6}, "payload_match": [{"pattern": "HTTP", "from": 0, "to": 8}]}, {"header_match": {}, "payload_match": []}]})"},
    {"ContentClassifier", R"({"pattern": ["12/0800 23/06", "12/894f", "-"]})"},
};

struct Target {
  const char* type;
  std::unique_ptr<obi::testing::ElementHarness> harness;
};

std::vector<Target> build_targets() {
  std::vector<Target> out;
  for (const Case& c : kCases) {
    if (!obi::find_element(c.type)) continue;
    // A config that the block refuses is a bug in this table, not a finding of the input.
    out.push_back({c.type, std::make_unique<obi::testing::ElementHarness>(c.type, nlohmann::json::parse(c.config),
                                                                          "fuzz", 1, 64)});
  }
  if (out.empty()) std::abort();
  return out;
}

bool inside(const std::vector<uint8_t>& frame) {
  if (frame.size() > obi::kMaxFrame) return false;
  obi::PacketPool pool(1);
  obi::Packet* p = pool.alloc_copy(frame.data(), static_cast<uint32_t>(frame.size()));
  if (!p) return false;
  const obi::Headers& h = p->headers();
  const bool ok = (h.l3 == obi::kNoOffset || h.l3 <= p->len) && (h.l4 == obi::kNoOffset || h.l4 <= p->len) &&
                  (h.payload == obi::kNoOffset || h.payload <= p->len);
  pool.free(p);
  return ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::vector<Target> targets = build_targets();
  if (size < 1) return 0;
  Target& t = targets[data[0] % targets.size()];
  const std::vector<obi::testing::Bytes> frames{obi::testing::Bytes(data + 1, data + size)};
  const obi::testing::Result r = t.harness->push(frames);
  if (r.total() + r.dropped < frames.size()) std::abort();                          // a packet vanished
  if (t.harness->pool().available() != t.harness->pool().capacity()) std::abort();  // a buffer leaked
  for (const auto& port : r.out)
    for (const auto& f : port)
      if (!inside(f)) std::abort();
  return 0;
}
