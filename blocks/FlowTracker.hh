// FlowTracker (spec 5.33, configuration defined by this project): tracks the
// bidirectional IP flows (5-tuple) that pass, each worker in its own bounded table.
//
// Ports: 1 input, 1 output; packets pass through unchanged.
// Config:
//   timeout:  seconds of inactivity after which a flow is forgotten (default 300)
//   capacity: maximum flows tracked per worker (default 65536); flows beyond it are
//             not tracked (counted in `untracked`)
// Read handles:  flows (flows in the tables: entries not yet reclaimed), count (packets),
//                new_flows (flows started), untracked (packets of flows that found no room)
// Write handles: reset (zero count, new_flows and untracked)
// Example: {"type": "FlowTracker", "name": "ft", "config": {"timeout": 60}}
// Each flow gets an id (worker in the top bits, a per-worker sequence below), the same
// for both directions. The catalogue describes the id as packet metadata `flow_id`; the
// engine's Packet has no metadata area yet, so the id stays in the table.
#pragma once

#include "common/flow_table.hh"
#include "engine/element.hh"

namespace obi::blocks {

class FlowTrackerElement final : public Element {
 public:
  explicit FlowTrackerElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  struct Flow { uint64_t id = 0; uint64_t packets = 0; };
  struct State {
    std::unique_ptr<FlowTable<Flow>> table;
    uint64_t next_id = 0;
    Counter packets, created, untracked;
  };
  PerWorker<State> state_;
  std::atomic<uint64_t> base_packets_{0}, base_created_{0}, base_untracked_{0};
  uint64_t sum(Counter State::*c) const;
};

}  // namespace obi::blocks
