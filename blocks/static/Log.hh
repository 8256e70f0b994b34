// Log (spec 5.17, static): sends a log message for every packet; the packet passes
// through unchanged.
//
// Each packet posts one log event to the worker's EventSink (ctx.events), with the
// block's name as origin block. The sink is a bounded ring: when it is full the event is
// dropped and counted by the sink, the packet is never held back.
//
// The graph compiler applies it in place on the links that lead to it (it passes
// through: Element::passes_through), so the block costs no push or batch split of its own.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/Log.json.
// Example: {"name": "trace", "type": "Log", "config": {"message": "new flow", "severity": 2}}
#pragma once

#include <string>

#include "engine/element.hh"

namespace obi {

class LogElement final : public Element {
 public:
  explicit LogElement(const ElementArgs& args);
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  bool passes_through() const override { return true; }
  void pass(Batch& batch, Context& ctx) override;

 private:
  std::string message_, app_id_;
  int severity_ = 1;
  int packet_size_ = 0;  // what EventSink::post gets: 0 none, < 0 whole packet
};

}  // namespace obi
