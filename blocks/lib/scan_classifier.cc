#include "lib/scan_classifier.hh"

#include "lib/config.hh"
#include "lib/scan_region.hh"
#include "lib/split.hh"

namespace obi::blocks {

ScanClassifier::ScanClassifier(std::unique_ptr<HsDatabase> db, const ElementArgs& args)
    : db_(std::move(db)),
      payload_only_(ConfigReader(args).boolean("payload_only", false)),
      stats_(static_cast<uint32_t>(db_->size()), args.workers) {}

void ScanClassifier::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  const bool payload_only = payload_only_.load(std::memory_order_relaxed);
  uint16_t outs[kBatchSize];
  for (uint32_t i = 0; i < batch.n; ++i) {
    ScanRegion r = scan_region(*batch.pkts[i], payload_only);
    unsigned best = kDropOutput;
    db_->scan(ctx.worker, r.data, r.len, [&](unsigned id, uint64_t, uint64_t) {
      if (id < best) best = id;
      return best == 0;  // nothing can beat expression 0
    });
    outs[i] = static_cast<uint16_t>(best);
  }
  emit_by_output(batch, outs, ctx, out, [&](uint16_t o, uint32_t packets, uint64_t bytes) {
    if (o != kDropOutput) stats_.add(ctx.worker, o, packets, bytes, ctx.now_ns);
  });
}

nlohmann::json ScanClassifier::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  if (handle == "payload_only") return payload_only_.load();
  return Element::read(handle);
}

void ScanClassifier::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  if (handle == "payload_only") {
    payload_only_ = handle_bool(value, *this, handle);
    return;
  }
  Element::write(handle, value);
}

}  // namespace obi::blocks
