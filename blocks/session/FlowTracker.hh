// FlowTracker (spec 5.33, configuration defined by this project): tracks the
// bidirectional IP flows (5-tuple) that pass, each worker in its own bounded table.
//
// Ports: 1 input, 1 output; packets pass through unchanged.
// Each worker tracks at most `capacity` flows; flows beyond it are not tracked (counted
// in `untracked`).
// Config keys, handles and port counts: blocks/catalogue/FlowTracker.json.
// Example: {"type": "FlowTracker", "name": "ft", "config": {"timeout": 60}}
// Packet metadata set on every IP packet (Packet::meta, engine/packet.hh), for the blocks
// after this one:
//   meta.flow_id       the flow's id, the same for both directions: worker + 1 in bits
//                      48-63, a per-worker sequence below (never 0); 0 for non-IP frames
//                      and for packets of flows that found no room (`untracked`)
//   meta.flow_packets  packets of the flow seen so far, this one included (saturates)
//   meta.flow_reverse  1 when the packet goes from the responder to the initiator (the
//                      endpoint that sent the flow's first packet), else 0
//   meta.flow_new      1 on the packet that started the flow (or restarted it after a timeout)
// Untouched (zero) metadata on a packet that reaches later blocks means "no flow".
#pragma once

#include "engine/element.hh"
#include "lib/flow_table.hh"

namespace obi::blocks {

class FlowTrackerElement final : public Element {
 public:
  explicit FlowTrackerElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  struct Flow {
    uint64_t id = 0;
    uint32_t packets = 0;
    bool initiator_reversed = false;
  };
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
