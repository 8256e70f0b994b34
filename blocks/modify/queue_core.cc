#include "modify/queue_core.hh"

#include <algorithm>

#include "modify/config.hh"

namespace obi::modify {

QueueCore::QueueCore(const ElementArgs& args, bool drop_front)
    : drop_front_(drop_front), slots_(args.workers) {
  ConfigReader c(args);
  capacity_ = static_cast<uint32_t>(c.required_integer("capacity", 1, 1 << 20));
  for (unsigned w = 0; w < slots_.size(); ++w) slots_[w].ring.init(capacity_);
}

void QueueCore::check_reset(Slot& s, Context& ctx) {
  uint64_t gen = reset_gen_.load(std::memory_order_acquire);
  if (s.reset_seen == gen) return;
  s.reset_seen = gen;
  while (!s.ring.empty()) ctx.drop(s.ring.pop());
}

void QueueCore::push(uint16_t, Batch& batch, Context& ctx, const Outputs&) {
  Slot& s = slots_[ctx.worker];
  check_reset(s, ctx);
  uint32_t dropped = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    if (s.ring.full()) {
      ++dropped;
      if (!drop_front_) { ctx.drop(p); continue; }
      ctx.drop(s.ring.pop());
    }
    s.ring.push(p);
  }
  batch.n = 0;
  if (dropped) s.drops.add(dropped);
  if (s.ring.size() > s.highwater.load(std::memory_order_relaxed))
    s.highwater.store(s.ring.size(), std::memory_order_relaxed);
}

void QueueCore::run_task(Context& ctx, const Outputs& out) {
  Slot& s = slots_[ctx.worker];
  check_reset(s, ctx);
  uint32_t budget = kReleasePerTask;
  while (!s.ring.empty() && budget > 0) {
    Batch b;
    while (!s.ring.empty() && budget > 0 && !b.full()) { b.add(s.ring.pop()); --budget; }
    out.emit(0, b, ctx);
  }
}

void QueueCore::release(Context& ctx, const Outputs& out) {
  Slot& s = slots_[ctx.worker];
  check_reset(s, ctx);
  while (!s.ring.empty()) {
    Batch b;
    while (!s.ring.empty() && !b.full()) b.add(s.ring.pop());
    out.emit(0, b, ctx);
  }
}

uint64_t QueueCore::held_packets() const {
  uint64_t n = 0;
  slots_.for_each([&](const Slot& s) { n += s.ring.length(); });
  return n;
}

nlohmann::json QueueCore::read(std::string_view h) const {
  uint64_t sum = 0;
  if (h == "length") return held_packets();
  if (h == "drops") { slots_.for_each([&](const Slot& s) { sum += s.drops.get(); }); return sum; }
  if (h == "highwater_length") {
    slots_.for_each([&](const Slot& s) { sum = std::max<uint64_t>(sum, s.highwater.load(std::memory_order_relaxed)); });
    return sum;
  }
  if (h == "capacity") return capacity_;
  return Element::read(h);
}

void QueueCore::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset_counts") {
    for (unsigned w = 0; w < slots_.size(); ++w) {
      slots_[w].drops.reset();
      slots_[w].highwater.store(0, std::memory_order_relaxed);
    }
  } else if (h == "reset") {
    reset_gen_.fetch_add(1, std::memory_order_release);
  } else {
    Element::write(h, v);
  }
}

}  // namespace obi::modify
