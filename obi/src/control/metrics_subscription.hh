// Metrics subscription (protocol extension, protocol/README.md "Metrics on KeepAlive").
// The controller sets the parameter `metrics_subscription` (SetParametersRequest) to name
// the counter handles to read per block and how often; the OBI then attaches their values,
// and its GlobalStats, to the first KeepAlive of every interval (field `metrics`), so the
// controller collects an OBI's figures without a GlobalStats / Read round trip.
//
//   {"id": 3, "interval": 10, "global_stats": true, "max_bytes": 65536,
//    "reads": [{"block_id": "fw", "read_handles": ["count", "no_match"]}]}
//
// Bounds: at most kMaxBlocks blocks and kMaxHandles handles in all, names of 1..kMaxName
// bytes, no block twice, interval in [1, 86400] s, max_bytes in [1024, 1 MiB] (default
// 64 KiB). A subscription outside them, an unknown field or a wrong JSON type is refused
// whole with BAD_REQUEST / ILLEGAL_ARGUMENT naming the field; `null` cancels it.
// What is attached stays under max_bytes: reads that would pass it are left out and
// counted in `omitted`; a read that fails (no such block or handle in the running graph)
// is reported in `errors` with its Error subtype. Handles are read with Runtime::read, as
// a ReadRequest is: under the runtime's control lock, never on the packet path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace obi::control {

struct MetricsSubscription {
  static constexpr size_t kMaxBlocks = 1024;
  static constexpr size_t kMaxHandles = 4096;
  static constexpr size_t kMaxName = 256;
  static constexpr size_t kDefaultMaxBytes = 64 * 1024;
  static constexpr size_t kMinBytes = 1024;
  static constexpr size_t kMaxBytes = 1024 * 1024;

  struct Read {
    std::string block_id;
    std::vector<std::string> read_handles;
  };

  uint64_t id = 0;           // echoed in every attachment, so the controller knows what it answers
  double interval = 10;      // seconds between attachments
  bool global_stats = true;  // attach the GlobalStats figures
  size_t max_bytes = kDefaultMaxBytes;
  std::vector<Read> reads;

  // Throws openbox::ProtocolError (ILLEGAL_ARGUMENT) naming the offending field.
  static MetricsSubscription parse(const nlohmann::json& v);
  nlohmann::json to_json() const;
};

// Reads one handle; throws openbox::ProtocolError when it cannot.
using HandleReader = std::function<nlohmann::json(const std::string& block, const std::string& handle)>;

// The `metrics` object of a KeepAlive for `s`: {"subscription", "stats" (when asked),
// "reads": {block: {handle: value}}, "errors": [...], "omitted"}, its encoding at most
// s.max_bytes long.
nlohmann::json collect_metrics(const MetricsSubscription& s, const nlohmann::json& stats, const HandleReader& read);

}  // namespace obi::control
