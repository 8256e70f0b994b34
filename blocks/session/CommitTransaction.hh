// CommitTransaction (spec 5.31, modifier): closes the named transaction that a
// BeginTransaction opened on the packet (see BeginTransaction.hh).
//
// Output 0: committed: the transaction is the packet's innermost open one; its copy is
// dropped and the packet goes on with every change made inside. Output 1: the commit
// failed and the packet was rolled back: the packet has the transaction open but not
// innermost (an inner one was left open), so it is replaced by its copy from that Begin
// (inner copies dropped); or it never opened the transaction, and goes on unchanged.
//
// Why: the success path of a transaction; output 1 sees the packet as it was at Begin.
//
// Ports:   1 input, 2 outputs.
// Config keys, handles and port counts: blocks/catalogue/CommitTransaction.json.
// Example: {"name": "done", "type": "CommitTransaction", "config": {"name": "nat"}}
#pragma once

#include <cstdint>

#include "engine/element.hh"
#include "lib/block_spec.hh"
#include "lib/counts.hh"

namespace obi {

class CommitTransactionElement final : public Element {
 public:
  explicit CommitTransactionElement(const ElementArgs& args);

  uint16_t output_count() const override { return spec::CommitTransaction::kOutputs.count; }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  enum { kSuccess, kFailure };
  uint64_t tag_ = 0;
  blocks::Counts<2> counts_;
};

}  // namespace obi
