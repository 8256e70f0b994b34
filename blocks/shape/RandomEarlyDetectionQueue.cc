#include "RandomEarlyDetectionQueue.hh"

#include "lib/block_spec.hh"

#include <algorithm>
#include <cmath>

#include "lib/config.hh"

namespace obi {

using namespace blocks;

namespace {
uint32_t capacity_of(const ElementArgs& args) {
  return static_cast<uint32_t>(ConfigReader(args).required_integer("capacity", 1, 1 << 20));
}
}  // namespace

RandomEarlyDetectionQueueElement::RandomEarlyDetectionQueueElement(const ElementArgs& args)
    : capacity_(capacity_of(args)), fifo_(args.workers, capacity_), red_(args.workers ? args.workers : 1) {
  ConfigReader c(args);
  min_thresh_ = c.required_number("min_thresh");
  max_thresh_ = c.required_number("max_thresh");
  max_p_ = c.required_number("max_p");
  double stability = c.has("stability") ? parse_number(c.get("stability"), c.where("stability")) : 4;
  gentle_ = c.boolean("gentle", true);
  if (!(min_thresh_ >= 0) || min_thresh_ > capacity_)
    c.fail("min_thresh", "expected a value in [0, capacity " + std::to_string(capacity_) + "]");
  if (!(max_thresh_ >= min_thresh_) || max_thresh_ > capacity_ || max_thresh_ <= 0)
    c.fail("max_thresh",
           "expected a value above 0, at least min_thresh and at most capacity " + std::to_string(capacity_));
  if (!(max_p_ >= 0 && max_p_ <= 1)) c.fail("max_p", "expected a probability in [0, 1]");
  if (!(stability >= 0 && stability <= 30)) c.fail("stability", "expected a value in [0, 30]");
  weight_ = std::exp2(-stability);
  for (unsigned w = 0; w < red_.size(); ++w) red_[w].rng = 0x9e3779b97f4a7c15ull * (w + 1);
}

bool RandomEarlyDetectionQueueElement::drop_early(Red& s, uint32_t length) {
  double avg = s.avg.load(std::memory_order_relaxed);
  avg += weight_ * (static_cast<double>(length) - avg);
  s.avg.store(avg, std::memory_order_relaxed);
  double p;
  if (avg < min_thresh_) {
    s.count = -1;
    return false;
  }
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
  const double u = static_cast<double>(s.rng >> 11) * 0x1.0p-53;  // [0, 1)
  if (u < p) {
    s.count = 0;
    return true;
  }
  return false;
}

void RandomEarlyDetectionQueueElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  PacketRing& ring = fifo_.ring(ctx);
  Red& red = red_[ctx.worker];
  Batch dropped;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    if (drop_early(red, ring.size()) || ring.full()) dropped.add(p);
    else ring.push(p);
  }
  batch.n = 0;
  fifo_.after_push(ctx.worker, dropped.n);
  out.emit(1, dropped, ctx);
}

void RandomEarlyDetectionQueueElement::run_task(Context& ctx, const Outputs& out) { fifo_.release_some(ctx, out, 0); }

void RandomEarlyDetectionQueueElement::release(Context& ctx, const Outputs& out) { fifo_.release_all(ctx, out, 0); }

uint64_t RandomEarlyDetectionQueueElement::held_packets() const { return fifo_.length(); }

nlohmann::json RandomEarlyDetectionQueueElement::read(std::string_view h) const {
  nlohmann::json v;
  if (fifo_.read_handle(h, v)) return v;
  if (h == "avg_queue_size") {
    double m = 0;
    red_.for_each([&](const Red& s) { m = std::max(m, s.avg.load(std::memory_order_relaxed)); });
    return m;
  }
  if (h == "min_thresh") return min_thresh_;
  if (h == "max_thresh") return max_thresh_;
  return Element::read(h);
}

void RandomEarlyDetectionQueueElement::write(std::string_view h, const nlohmann::json& v) {
  if (!fifo_.write_handle(h)) Element::write(h, v);
}

OBI_REGISTER_BLOCK(RandomEarlyDetectionQueue, RandomEarlyDetectionQueueElement);

}  // namespace obi
