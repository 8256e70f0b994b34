#include "BeginTransaction.hh"

#include "lib/block_spec.hh"
#include "lib/config.hh"

namespace obi {

using namespace blocks;

BeginTransactionElement::BeginTransactionElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  const std::string name = c.required_string("name");
  if (name.empty()) c.fail("name", "must not be empty");
  tag_ = transaction::tag(name);
}

void BeginTransactionElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    unsigned open = 0;
    for (const Packet* c = p->undo; c != nullptr; c = c->undo) ++open;
    Packet* copy = open < transaction::kMaxTransactions ? ctx.pool->clone(*p) : nullptr;
    if (copy == nullptr) {
      ctx.drop(p);
      continue;
    }
    copy->undo = p->undo;
    copy->undo_tag = tag_;
    p->undo = copy;
    batch.pkts[kept++] = p;
  }
  counts_.add(ctx.worker, kDropped, batch.n - kept);
  counts_.add(ctx.worker, kCount, kept);
  batch.n = kept;
  out.emit(0, batch, ctx);
}

nlohmann::json BeginTransactionElement::read(std::string_view h) const {
  if (h == "count") return counts_.get(kCount);
  if (h == "dropped") return counts_.get(kDropped);
  return Element::read(h);
}

void BeginTransactionElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset") counts_.reset();
  else Element::write(h, v);
}

OBI_REGISTER_BLOCK(BeginTransaction, BeginTransactionElement);

}  // namespace obi
