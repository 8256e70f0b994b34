#include "RollbackTransaction.hh"

#include "BeginTransaction.hh"
#include "lib/block_spec.hh"
#include "lib/config.hh"

namespace obi {

using namespace blocks;

RollbackTransactionElement::RollbackTransactionElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  const std::string name = c.required_string("name");
  if (name.empty()) c.fail("name", "must not be empty");
  tag_ = transaction::tag(name);
}

void RollbackTransactionElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  uint64_t rolled = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    const unsigned depth = transaction::find(*batch.pkts[i], tag_);
    if (depth == 0) continue;
    batch.pkts[i] = transaction::roll_back(batch.pkts[i], depth, *ctx.pool);
    ++rolled;
  }
  counts_.add(ctx.worker, 0, rolled);
  out.emit(0, batch, ctx);
}

nlohmann::json RollbackTransactionElement::read(std::string_view h) const {
  if (h == "count") return counts_.get(0);
  return Element::read(h);
}

void RollbackTransactionElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset") counts_.reset();
  else Element::write(h, v);
}

OBI_REGISTER_BLOCK(RollbackTransaction, RollbackTransactionElement);

}  // namespace obi
