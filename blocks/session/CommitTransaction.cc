#include "CommitTransaction.hh"

#include "BeginTransaction.hh"
#include "lib/config.hh"

namespace obi {

using namespace blocks;

CommitTransactionElement::CommitTransactionElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  const std::string name = c.required_string("name");
  if (name.empty()) c.fail("name", "must not be empty");
  tag_ = transaction::tag(name);
}

void CommitTransactionElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  Batch failed;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    const unsigned depth = transaction::find(*p, tag_);
    if (depth == 1) {
      Packet* copy = p->undo;
      p->undo = copy->undo;
      copy->undo = nullptr;
      ctx.pool->free(copy);
      batch.pkts[kept++] = p;
    } else {
      failed.add(depth ? transaction::roll_back(p, depth, *ctx.pool) : p);
    }
  }
  batch.n = kept;
  counts_.add(ctx.worker, kSuccess, kept);
  counts_.add(ctx.worker, kFailure, failed.n);
  out.emit(0, batch, ctx);
  out.emit(1, failed, ctx);
}

nlohmann::json CommitTransactionElement::read(std::string_view h) const {
  if (h == "count_success") return counts_.get(kSuccess);
  if (h == "count_failure") return counts_.get(kFailure);
  return Element::read(h);
}

void CommitTransactionElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset") counts_.reset();
  else Element::write(h, v);
}

OBI_REGISTER_BLOCK(CommitTransaction, CommitTransactionElement);

}  // namespace obi
