// SetTimestamp (spec 5.44, modifier): sets the packet's timestamp (Packet::timestamp_ns,
// wall-clock nanoseconds: the time an Alert reports and ToDump writes) to the current time
// or to a configured one. The first SetTimestamp a packet meets also keeps the timestamp it
// replaces (its arrival time; the new stamp when it had none) in
// Packet::first_timestamp_ns, the reference of SetTimestampDelta's FIRST mode.
//
// Why: with SetTimestampDelta NOW later in the graph, the pair measures how long a packet
// takes between two points (a queue, a shaper, a chain of classifiers); a fixed time makes
// the packets of a test or a replay carry a known timestamp.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/SetTimestamp.json.
// Example: {"name": "t0", "type": "SetTimestamp", "config": {}}
//          ... -> {"name": "lat", "type": "SetTimestampDelta", "config": {"range": "NOW"}}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/element.hh"
#include "lib/counts.hh"

namespace obi {

// "1700000000.25" -> nanoseconds since the epoch; nullopt for anything else (sign,
// exponent, more than 9 decimals, past 2^64 ns).
std::optional<uint64_t> parse_epoch_seconds(std::string_view text);
// Nanoseconds since the epoch -> "1700000000.250000000".
std::string format_epoch_seconds(uint64_t ns);

class SetTimestampElement final : public Element {
 public:
  explicit SetTimestampElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  uint64_t fixed_ns_ = 0;  // 0: the current time
  blocks::Counts<1> counts_;
};

}  // namespace obi
