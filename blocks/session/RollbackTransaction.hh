// RollbackTransaction (spec 5.32, modifier): undoes the named transaction that a
// BeginTransaction opened on the packet (see BeginTransaction.hh): the packet is replaced
// by its copy from that Begin, so it goes on exactly as it was there (transactions opened
// inside it are closed too; ones opened before it stay open). A packet that never opened
// the transaction goes on unchanged and is not counted.
//
// Why: the failure path of a transaction, e.g. after a check rejected the rewritten packet.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/RollbackTransaction.json.
// Example: {"name": "undo", "type": "RollbackTransaction", "config": {"name": "nat"}}
#pragma once

#include <cstdint>

#include "engine/element.hh"
#include "lib/counts.hh"

namespace obi {

class RollbackTransactionElement final : public Element {
 public:
  explicit RollbackTransactionElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  uint64_t tag_ = 0;
  blocks::Counts<1> counts_;
};

}  // namespace obi
