#include "lib/shaper_core.hh"

#include <cmath>

#include "lib/config.hh"

namespace obi::blocks {

namespace {

double checked_rate(double r, const Where& w) {
  if (!std::isfinite(r) || r <= 0 || r > 1e13)
    w.fail("expected a positive number (at most 1e13), got " + std::to_string(r));
  return r;
}

}  // namespace

ShaperCore::ShaperCore(const ElementArgs& args, bool bytes) : bytes_(bytes), bucket_(1), slots_(args.workers) {
  ConfigReader c(args);
  bucket_.set_rate(checked_rate(c.required_number("rate"), c.where("rate")));
  capacity_ = static_cast<uint32_t>(c.integer("capacity", 1000, 1, 1 << 20));
  for (unsigned w = 0; w < slots_.size(); ++w) slots_[w].ring.init(capacity_);
}

void ShaperCore::send_conforming(Slot& s, Context& ctx, const Outputs& out) {
  while (!s.ring.empty()) {
    Batch b;
    while (!s.ring.empty() && !b.full() && bucket_.take(ctx.now_ns, units(*s.ring.front()))) b.add(s.ring.pop());
    if (b.n == 0) return;
    bool more = b.full();
    out.emit(0, b, ctx);
    if (!more) return;
  }
}

void ShaperCore::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  Slot& s = slots_[ctx.worker];
  if (!s.ring.empty()) send_conforming(s, ctx, out);
  uint32_t pass = 0, dropped = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    if (s.ring.empty() && bucket_.take(ctx.now_ns, units(*p))) {
      batch.pkts[pass++] = p;
    } else if (s.ring.full()) {
      ctx.drop(p);
      ++dropped;
    } else {
      s.ring.push(p);
    }
  }
  if (dropped) s.drops.add(dropped);
  batch.n = pass;
  out.emit(0, batch, ctx);
}

void ShaperCore::run_task(Context& ctx, const Outputs& out) {
  Slot& s = slots_[ctx.worker];
  if (!s.ring.empty()) send_conforming(s, ctx, out);
}

void ShaperCore::release(Context& ctx, const Outputs& out) {
  Slot& s = slots_[ctx.worker];
  while (!s.ring.empty()) {
    Batch b;
    while (!s.ring.empty() && !b.full()) b.add(s.ring.pop());
    out.emit(0, b, ctx);
  }
}

uint64_t ShaperCore::held_packets() const {
  uint64_t n = 0;
  slots_.for_each([&](const Slot& s) { n += s.ring.length(); });
  return n;
}

nlohmann::json ShaperCore::read(std::string_view h) const {
  if (h == "rate") return bucket_.rate();
  uint64_t sum = 0;
  if (h == "length") return held_packets();
  if (h == "drops") {
    slots_.for_each([&](const Slot& s) { sum += s.drops.get(); });
    return sum;
  }
  if (h == "capacity") return capacity_;
  return Element::read(h);
}

void ShaperCore::write(std::string_view h, const nlohmann::json& v) {
  if (h == "rate") {
    Where w = handle_where(*this, h);
    bucket_.set_rate(checked_rate(parse_number(v, w), w));
  } else {
    Element::write(h, v);
  }
}

}  // namespace obi::blocks
