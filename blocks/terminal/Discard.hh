// Discard (spec 5.5): drops every packet it receives and counts them.
//
// Ports:   1 input, no outputs.
// Config keys, handles and port counts: blocks/catalogue/Discard.json.
// Example: { "type": "Discard", "name": "drop", "config": {} }
#pragma once

#include "engine/element.hh"
#include "lib/block_spec.hh"

namespace obi::blocks {

class Discard final : public Element {
 public:
  explicit Discard(const ElementArgs& args);
  uint16_t output_count() const override { return spec::Discard::kOutputs.count; }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  PerWorker<Counter> count_;
};

}  // namespace obi::blocks
