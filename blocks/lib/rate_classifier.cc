#include "lib/rate_classifier.hh"

#include <algorithm>

namespace obi::blocks {

RateSplitterElement::RateSplitterElement(const ElementArgs& args, std::vector<double> thresholds, bool bytes)
    : thresholds_(std::move(thresholds)),
      bytes_(bytes),
      input_rate_(args.workers ? args.workers : 1),
      stats_(static_cast<uint32_t>(thresholds_.size() + 1), args.workers) {}

void RateSplitterElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  const uint64_t bytes = batch.bytes();
  input_rate_[ctx.worker].add(bytes_ ? static_cast<double>(bytes) : batch.n, ctx.now_ns, kTauSeconds);
  double rate = 0;
  input_rate_.for_each([&](const EwmaRate& r) { rate += r.rate.load(std::memory_order_relaxed); });
  uint16_t o =
      static_cast<uint16_t>(std::upper_bound(thresholds_.begin(), thresholds_.end(), rate) - thresholds_.begin());
  stats_.add(ctx.worker, o, batch.n, bytes, ctx.now_ns);
  out.emit(o, batch, ctx);
}

nlohmann::json RateSplitterElement::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  if (handle == "input_rate") {
    double r = 0;
    input_rate_.for_each([&](const EwmaRate& x) { r += x.rate.load(std::memory_order_relaxed); });
    return r;
  }
  return Element::read(handle);
}

void RateSplitterElement::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  Element::write(handle, value);
}

}  // namespace obi::blocks
