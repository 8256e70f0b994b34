// HttpCacheResponder (extension, modifier): answers HTTP GET requests for cached objects
// from the network; the request never reaches the server.
//
// A packet is a request when it is IPv4/TCP (VLAN tags allowed, not a fragment, ACK set,
// SYN and RST clear) and its TCP payload (length from the IPv4 total length, so Ethernet
// padding is ignored) is exactly one whole request head: "GET <target> HTTP/1.x" CRLF,
// header lines, an empty line. The Host header without ":port" (or the host of an
// absolute-form "http://host/path" target) and the target (query included) select the
// first entry whose host equals it case-insensitively (an entry without host matches any)
// and whose path equals the target byte for byte.
//
// On a hit the request packet becomes the first response segment in place, more segments
// come from the worker's packet pool:
//   Ethernet: addresses swapped, VLAN tags kept;
//   IPv4:     addresses swapped, no options, tos 0, id 0, DF, ttl = config, checksum;
//   TCP:      ports swapped, no options, seq = request ack + offset in the response,
//             ack = request seq + request payload length (+1 if the request carried FIN),
//             window 65535, ACK|PSH on every segment and FIN on the last one, checksum;
//   payload:  "HTTP/1.1 200 OK", Content-Type, Content-Length, "Connection: close",
//             "X-Cache: HIT", empty line, body; cut into mss-sized segments.
// All segments of one response leave on output 0 in order during the same push, in
// batches of at most kBatchSize. When the pool has fewer free buffers than the response
// needs, the request passes on output 1 untouched (counted in no_buffer), so the server
// answers it. Responses (bytes and per-segment checksum sums) are built when the block
// is configured: the data path copies bytes and adds 40 header bytes to a precomputed sum,
// it never allocates.
//
// Everything else leaves on output 1 unchanged: non-IPv4/TCP, non-GET, requests split
// over several segments or followed by a pipelined one, and GETs no entry matches (misses).
//
// Ports:   1 input; output 0 = responses (towards the client), output 1 = the rest.
// Config keys, handles and port counts: blocks/catalogue/HttpCacheResponder.json.
// hits is per entry; passed counts the packets on output 1.
// Example: {"name": "cache", "type": "HttpCacheResponder",
//           "config": {"entries": [{"host": "www.example.com", "path": "/",
//                                   "content_type": "text/html", "body": "PGh0bWw+PC9odG1sPg=="}],
//                      "mss": 1460}}
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/element.hh"
#include "lib/block_spec.hh"

namespace obi {

class HttpCacheResponderElement final : public Element {
 public:
  static constexpr uint32_t kMaxResponse = 65535;

  explicit HttpCacheResponderElement(const ElementArgs& args);

  uint16_t output_count() const override { return spec::HttpCacheResponder::kOutputs.count; }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  struct Entry {
    std::string host;  // lower case; empty: any host
    std::string path;
    std::vector<uint8_t> response;     // status line, headers, body
    std::vector<uint32_t> chunk_sums;  // 16-bit big-endian word sums of each mss-sized chunk
  };
  struct Counts {
    Counter answered, bytes, segments, misses, passed, no_buffer;
    std::unique_ptr<Counter[]> hits;  // one per entry
  };
  struct PathHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  enum class Verdict { kPass, kMiss, kHit, kNoBuffer };

  // Entry index for a request, or -1.
  int lookup(std::string_view host, std::string_view path) const;
  // Classifies the packet; on kHit `entry` is set.
  Verdict classify(Packet& p, int& entry, Context& ctx) const;
  // Turns request p into the response of entry e; appends the segments to `resp`,
  // emitting full batches on output 0. Returns the number of frames and adds their bytes.
  uint32_t respond(Packet& p, const Entry& e, Batch& resp, Context& ctx, const Outputs& out, uint64_t& bytes) const;
  uint64_t total(Counter Counts::*c) const;

  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::vector<uint32_t>, PathHash, std::equal_to<>> by_path_;
  uint32_t mss_ = 1460;
  uint8_t ttl_ = 64;
  PerWorker<Counts> counts_;
  // Totals at the last reset_counts (the workers' counters are never written by others).
  std::atomic<uint64_t> base_answered_{0}, base_bytes_{0}, base_segments_{0}, base_misses_{0}, base_passed_{0},
      base_no_buffer_{0};
  std::unique_ptr<std::atomic<uint64_t>[]> base_hits_;
};

}  // namespace obi
