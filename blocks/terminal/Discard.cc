#include "Discard.hh"

#include "lib/block_spec.hh"

namespace obi::blocks {

Discard::Discard(const ElementArgs& args) : count_(args.workers) {}

void Discard::push(uint16_t, Batch& batch, Context& ctx, const Outputs&) {
  count_[ctx.worker].add(batch.n);
  ctx.drop(batch);  // counted in the runtime's packets_dropped as well
}

nlohmann::json Discard::read(std::string_view handle) const {
  if (handle == "count") {
    uint64_t n = 0;
    count_.for_each([&](const Counter& c) { n += c.get(); });
    return n;
  }
  return Element::read(handle);
}

void Discard::write(std::string_view handle, const nlohmann::json& value) {
  if (handle == "reset_counts") {
    for (unsigned w = 0; w < count_.size(); ++w) count_[w].reset();
    return;
  }
  Element::write(handle, value);
}

OBI_REGISTER_BLOCK(Discard, Discard);

}  // namespace obi::blocks
