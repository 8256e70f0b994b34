// SetTimestampDelta (spec 5.45, modifier): replaces each nonzero packet timestamp by a
// delta in nanoseconds and keeps statistics of the deltas.
//   RANGE (default): timestamp minus the first nonzero timestamp this block met (reset
//                    by the `reset` handle), e.g. times relative to a capture's start;
//   NOW:   current wall-clock time minus the timestamp: after a SetTimestamp earlier in
//          the graph, the time the packet took from there to here;
//   FIRST: timestamp minus the packet's first timestamp (Packet::first_timestamp_ns, kept
//          by SetTimestamp); a packet without one passes unchanged.
// A packet whose timestamp is 0 passes unchanged and is not counted; a negative delta
// counts as 0.
//
// Why: latency between two points of a graph, observable without a capture: the
// count/avg_ns/min_ns/max_ns handles, and with metadata_key the delta as an integer
// metadata value for ReadMetadata (e.g. a rule on slow packets) or EncapsulateMetadata.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/SetTimestampDelta.json.
// Example: {"name": "lat", "type": "SetTimestampDelta",
//           "config": {"range": "NOW", "metadata_key": "latency"}}
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "engine/element.hh"

namespace obi {

class SetTimestampDeltaElement final : public Element {
 public:
  explicit SetTimestampDeltaElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  enum class Mode : uint8_t { kRange, kNow, kFirst };
  // One worker's statistics. The control thread's reset bumps epoch_; a worker whose slot
  // is of an older epoch zeroes it before adding, and reads skip such slots, so a reset
  // never races with the worker's plain stores.
  struct Stats {
    std::atomic<uint64_t> epoch{0};
    std::atomic<uint64_t> count{0}, sum{0}, min{0}, max{0}, full{0};
  };

  uint64_t delta(const Packet& p, uint64_t now);
  Mode mode_ = Mode::kRange;
  std::string key_;  // empty: no metadata written
  std::atomic<uint64_t> first_{0};
  std::atomic<uint64_t> epoch_{1};
  PerWorker<Stats> stats_;
};

}  // namespace obi
