#include "SetTimestampDelta.hh"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "SetTimestamp.hh"
#include "lib/block_spec.hh"
#include "lib/config.hh"
#include "lib/meta_config.hh"

namespace obi {

using namespace blocks;

namespace {
constexpr auto kRelaxed = std::memory_order_relaxed;
}

SetTimestampDeltaElement::SetTimestampDeltaElement(const ElementArgs& args) : stats_(args.workers) {
  ConfigReader c(args);
  if (c.has("range")) {
    std::string r = parse_string(c.get("range"), c.where("range"));
    std::transform(r.begin(), r.end(), r.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
    if (r == "RANGE") mode_ = Mode::kRange;
    else if (r == "NOW") mode_ = Mode::kNow;
    else if (r == "FIRST") mode_ = Mode::kFirst;
    else c.fail("range", "'" + r.substr(0, 40) + "' is not RANGE, NOW or FIRST");
  }
  if (c.has("metadata_key")) key_ = parse_meta_key(c.get("metadata_key"), c.where("metadata_key"));
}

// The packet's delta; ~0 when it has none (timestamp 0, FIRST without a first timestamp).
uint64_t SetTimestampDeltaElement::delta(const Packet& p, uint64_t now) {
  const uint64_t ts = p.timestamp_ns;
  if (ts == 0) return ~uint64_t{0};
  uint64_t from = 0, to = ts;
  switch (mode_) {
    case Mode::kRange: {
      // The reference is set once (a compare-exchange only while unset); a failed
      // exchange leaves the reference another worker set in `from`.
      from = first_.load(kRelaxed);
      if (from == 0 && first_.compare_exchange_strong(from, ts, kRelaxed)) from = ts;
      break;
    }
    case Mode::kNow:
      from = ts;
      to = now;
      break;
    case Mode::kFirst:
      if (p.first_timestamp_ns == 0) return ~uint64_t{0};
      from = p.first_timestamp_ns;
      break;
  }
  return to > from ? to - from : 0;
}

void SetTimestampDeltaElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  Stats& s = stats_[ctx.worker];
  const uint64_t epoch = epoch_.load(kRelaxed);
  if (s.epoch.load(kRelaxed) != epoch) {
    s.count.store(0, kRelaxed);
    s.sum.store(0, kRelaxed);
    s.min.store(0, kRelaxed);
    s.max.store(0, kRelaxed);
    s.full.store(0, kRelaxed);
    s.epoch.store(epoch, kRelaxed);
  }
  const uint64_t now = ctx.now_ns + static_cast<uint64_t>(ctx.wall_offset_ns);
  uint64_t count = s.count.load(kRelaxed), sum = s.sum.load(kRelaxed);
  uint64_t lo = s.min.load(kRelaxed), hi = s.max.load(kRelaxed), full = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    const uint64_t d = delta(*p, now);
    if (d == ~uint64_t{0}) continue;
    p->timestamp_ns = d;
    lo = count == 0 ? d : std::min(lo, d);
    hi = std::max(hi, d);
    sum += d;
    ++count;
    if (!key_.empty() && !p->values.set(key_, MetaValue::of(static_cast<int64_t>(std::min<uint64_t>(d, INT64_MAX)))))
      ++full;
  }
  s.count.store(count, kRelaxed);
  s.sum.store(sum, kRelaxed);
  s.min.store(lo, kRelaxed);
  s.max.store(hi, kRelaxed);
  if (full) s.full.store(s.full.load(kRelaxed) + full, kRelaxed);
  out.emit(0, batch, ctx);
}

nlohmann::json SetTimestampDeltaElement::read(std::string_view h) const {
  if (h == "first") {
    const uint64_t f = first_.load(kRelaxed);
    return f ? format_epoch_seconds(f) : std::string();
  }
  const uint64_t epoch = epoch_.load(kRelaxed);
  uint64_t count = 0, sum = 0, lo = 0, hi = 0, full = 0;
  bool any = false;
  stats_.for_each([&](const Stats& s) {
    if (s.epoch.load(kRelaxed) != epoch) return;
    const uint64_t n = s.count.load(kRelaxed);
    full += s.full.load(kRelaxed);
    if (n == 0) return;
    lo = any ? std::min(lo, s.min.load(kRelaxed)) : s.min.load(kRelaxed);
    hi = std::max(hi, s.max.load(kRelaxed));
    count += n;
    sum += s.sum.load(kRelaxed);
    any = true;
  });
  if (h == "count") return count;
  if (h == "avg_ns") return count ? static_cast<double>(sum) / static_cast<double>(count) : 0.0;
  if (h == "min_ns") return lo;
  if (h == "max_ns") return hi;
  if (h == "full") return full;
  return Element::read(h);
}

void SetTimestampDeltaElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset") {
    first_.store(0, kRelaxed);
    epoch_.fetch_add(1, kRelaxed);
  } else {
    Element::write(h, v);
  }
}

OBI_REGISTER_BLOCK(SetTimestampDelta, SetTimestampDeltaElement);

}  // namespace obi
