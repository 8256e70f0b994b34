#include "RegexMatcher.hh"

#include "lib/block_spec.hh"

#include "lib/config.hh"
#include "lib/scan_region.hh"
#include "lib/split.hh"

namespace obi::blocks {

namespace {

std::unique_ptr<HsDatabase> compile(const ElementArgs& args) {
  ConfigReader c(args);
  auto patterns = c.strings("pattern", true);
  return std::make_unique<HsDatabase>(patterns, std::vector<unsigned>{}, args.workers, c.where("pattern"));
}

}  // namespace

RegexMatcherElement::RegexMatcherElement(const ElementArgs& args)
    : db_(compile(args)),
      payload_only_(ConfigReader(args).boolean("payload_only", false)),
      match_all_(ConfigReader(args).boolean("match_all", false)),
      stats_(2, args.workers) {}

void RegexMatcherElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  const bool payload_only = payload_only_.load(std::memory_order_relaxed);
  const bool all = match_all_.load(std::memory_order_relaxed);
  const size_t need = all ? db_->size() : 1;
  uint16_t outs[kBatchSize];
  for (uint32_t i = 0; i < batch.n; ++i) {
    ScanRegion r = scan_region(*batch.pkts[i], payload_only);
    size_t hits = 0;  // each pattern reports at most once (single-match mode)
    db_->scan(ctx.worker, r.data, r.len, [&](unsigned, uint64_t, uint64_t) { return ++hits >= need; });
    outs[i] = hits >= need ? 0 : 1;
  }
  emit_by_output(batch, outs, ctx, out, [&](uint16_t o, uint32_t packets, uint64_t bytes) {
    stats_.add(ctx.worker, o, packets, bytes, ctx.now_ns);
  });
}

nlohmann::json RegexMatcherElement::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  if (handle == "payload_only" || handle == "paylaod_only") return payload_only_.load();
  if (handle == "match_all") return match_all_.load();
  return Element::read(handle);
}

void RegexMatcherElement::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  if (handle == "payload_only") {
    payload_only_ = handle_bool(value, *this, handle);
    return;
  }
  if (handle == "match_all") {
    match_all_ = handle_bool(value, *this, handle);
    return;
  }
  Element::write(handle, value);
}

OBI_REGISTER_BLOCK(RegexMatcher, RegexMatcherElement);

}  // namespace obi::blocks
