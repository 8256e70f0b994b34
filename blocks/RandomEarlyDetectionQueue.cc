#include "RandomEarlyDetectionQueue.hh"

#include "common/block_spec.hh"

#include <algorithm>
#include <cmath>

#include "modify/config.hh"

namespace obi {

using namespace modify;

RandomEarlyDetectionQueueElement::RandomEarlyDetectionQueueElement(const ElementArgs& args) : slots_(args.workers) {
  ConfigReader c(args);
  capacity_ = static_cast<uint32_t>(c.required_integer("capacity", 1, 1 << 20));
  min_thresh_ = c.required_number("min_thresh");
  max_thresh_ = c.required_number("max_thresh");
  max_p_ = c.required_number("max_p");
  double stability = c.has("stability") ? parse_number(c.get("stability"), c.where("stability")) : 4;
  gentle_ = c.boolean("gentle", true);
  if (!(min_thresh_ >= 0) || min_thresh_ > capacity_)
    c.fail("min_thresh", "must be in [0, capacity " + std::to_string(capacity_) + "]");
  if (!(max_thresh_ >= min_thresh_) || max_thresh_ > capacity_ || max_thresh_ <= 0)
    c.fail("max_thresh", "must be above 0, at least min_thresh and at most capacity " + std::to_string(capacity_));
  if (!(max_p_ >= 0 && max_p_ <= 1)) c.fail("max_p", "must be a probability in [0, 1]");
  if (!(stability >= 0 && stability <= 30)) c.fail("stability", "must be in [0, 30]");
  weight_ = std::exp2(-stability);
  for (unsigned w = 0; w < slots_.size(); ++w) {
    slots_[w].ring.init(capacity_);
    slots_[w].rng = 0x9e3779b97f4a7c15ull * (w + 1);
  }
}

bool RandomEarlyDetectionQueueElement::drop_early(Slot& s) {
  double avg = s.avg.load(std::memory_order_relaxed);
  avg += weight_ * (static_cast<double>(s.ring.size()) - avg);
  s.avg.store(avg, std::memory_order_relaxed);
  double p;
  if (avg < min_thresh_) { s.count = -1; return false; }
  if (avg < max_thresh_) {
    ++s.count;
    double pb = max_thresh_ > min_thresh_ ? max_p_ * (avg - min_thresh_) / (max_thresh_ - min_thresh_) : max_p_;
    p = s.count * pb >= 1 ? 1.0 : pb / (1 - s.count * pb);
  } else if (gentle_ && avg < 2 * max_thresh_) {
    p = max_p_ + (1 - max_p_) * (avg - max_thresh_) / max_thresh_;
  } else {
    p = 1;
  }
  s.rng ^= s.rng << 13;
  s.rng ^= s.rng >> 7;
  s.rng ^= s.rng << 17;
  const double u = static_cast<double>(s.rng >> 11) * 0x1.0p-53;   // [0, 1)
  if (u < p) { s.count = 0; return true; }
  return false;
}

void RandomEarlyDetectionQueueElement::check_reset(Slot& s, Context& ctx) {
  uint64_t gen = reset_gen_.load(std::memory_order_acquire);
  if (s.reset_seen == gen) return;
  s.reset_seen = gen;
  while (!s.ring.empty()) ctx.drop(s.ring.pop());
}

void RandomEarlyDetectionQueueElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  Slot& s = slots_[ctx.worker];
  check_reset(s, ctx);
  Batch dropped;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    if (drop_early(s) || s.ring.full()) dropped.add(p);
    else s.ring.push(p);
  }
  batch.n = 0;
  if (dropped.n) s.drops.add(dropped.n);
  if (s.ring.size() > s.highwater.load(std::memory_order_relaxed))
    s.highwater.store(s.ring.size(), std::memory_order_relaxed);
  out.emit(1, dropped, ctx);
}

void RandomEarlyDetectionQueueElement::run_task(Context& ctx, const Outputs& out) {
  Slot& s = slots_[ctx.worker];
  check_reset(s, ctx);
  uint32_t budget = kReleasePerTask;
  while (!s.ring.empty() && budget > 0) {
    Batch b;
    while (!s.ring.empty() && budget > 0 && !b.full()) { b.add(s.ring.pop()); --budget; }
    out.emit(0, b, ctx);
  }
}

void RandomEarlyDetectionQueueElement::release(Context& ctx, const Outputs& out) {
  Slot& s = slots_[ctx.worker];
  check_reset(s, ctx);
  while (!s.ring.empty()) {
    Batch b;
    while (!s.ring.empty() && !b.full()) b.add(s.ring.pop());
    out.emit(0, b, ctx);
  }
}

uint64_t RandomEarlyDetectionQueueElement::held_packets() const {
  uint64_t n = 0;
  slots_.for_each([&](const Slot& s) { n += s.ring.length(); });
  return n;
}

nlohmann::json RandomEarlyDetectionQueueElement::read(std::string_view h) const {
  if (h == "length") return held_packets();
  if (h == "drops") { uint64_t n = 0; slots_.for_each([&](const Slot& s) { n += s.drops.get(); }); return n; }
  if (h == "highwater_length") {
    uint32_t m = 0;
    slots_.for_each([&](const Slot& s) { m = std::max(m, s.highwater.load(std::memory_order_relaxed)); });
    return m;
  }
  if (h == "avg_queue_size") {
    double m = 0;
    slots_.for_each([&](const Slot& s) { m = std::max(m, s.avg.load(std::memory_order_relaxed)); });
    return m;
  }
  if (h == "capacity") return capacity_;
  if (h == "min_thresh") return min_thresh_;
  if (h == "max_thresh") return max_thresh_;
  return Element::read(h);
}

void RandomEarlyDetectionQueueElement::write(std::string_view h, const nlohmann::json& v) {
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

OBI_REGISTER_BLOCK(RandomEarlyDetectionQueue, RandomEarlyDetectionQueueElement);

}  // namespace obi
