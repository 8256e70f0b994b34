#include "FlowTracker.hh"

#include "lib/block_spec.hh"

#include "lib/config.hh"

namespace obi::blocks {

FlowTrackerElement::FlowTrackerElement(const ElementArgs& args) : state_(args.workers ? args.workers : 1) {
  ConfigReader c(args);
  int64_t timeout = c.integer("timeout", 300, 1, 86400 * 365);
  int64_t capacity = c.integer("capacity", 65536, 1, 1 << 22);  // 4M flows: ~300 MB per worker
  for (unsigned w = 0; w < state_.size(); ++w)
    state_[w].table = std::make_unique<FlowTable<Flow>>(static_cast<uint32_t>(capacity),
                                                        static_cast<uint64_t>(timeout) * 1'000'000'000ull);
}

void FlowTrackerElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  State& s = state_[ctx.worker];
  uint64_t created = 0, untracked = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet& p = *batch.pkts[i];
    p.meta.flow_id = 0;
    p.meta.flow_packets = 0;
    p.meta.flow_reverse = p.meta.flow_new = 0;
    FlowKey k;
    bool reversed, fresh = false;
    if (!flow_key(p, k, reversed)) continue;
    auto* e = s.table->lookup(k, ctx.now_ns, true, &fresh);
    if (!e) {
      ++untracked;
      continue;
    }
    Flow& f = e->value;
    if (fresh) {
      f.id = uint64_t(ctx.worker + 1) << 48 | (++s.next_id & ((uint64_t(1) << 48) - 1));
      f.initiator_reversed = reversed;
      ++created;
    }
    if (f.packets != UINT32_MAX) ++f.packets;
    p.meta.flow_id = f.id;
    p.meta.flow_packets = f.packets;
    p.meta.flow_reverse = reversed != f.initiator_reversed;
    p.meta.flow_new = fresh;
  }
  s.packets.add(batch.n);
  s.created.add(created);
  s.untracked.add(untracked);
  out.emit(0, batch, ctx);
}

uint64_t FlowTrackerElement::sum(Counter State::*c) const {
  uint64_t v = 0;
  state_.for_each([&](const State& s) { v += (s.*c).get(); });
  return v;
}

nlohmann::json FlowTrackerElement::read(std::string_view handle) const {
  if (handle == "flows") {
    uint64_t v = 0;
    state_.for_each([&](const State& s) { v += s.table->occupied(); });
    return v;
  }
  if (handle == "count") return sum(&State::packets) - base_packets_.load();
  if (handle == "new_flows") return sum(&State::created) - base_created_.load();
  if (handle == "untracked") return sum(&State::untracked) - base_untracked_.load();
  return Element::read(handle);
}

void FlowTrackerElement::write(std::string_view handle, const nlohmann::json& value) {
  if (handle == "reset") {
    base_packets_ = sum(&State::packets);
    base_created_ = sum(&State::created);
    base_untracked_ = sum(&State::untracked);
    return;
  }
  Element::write(handle, value);
}

OBI_REGISTER_BLOCK(FlowTracker, FlowTrackerElement);

}  // namespace obi::blocks
