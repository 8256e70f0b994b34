#include "StringClassifier.hh"

#include "common/config.hh"
#include "common/scan_region.hh"
#include "common/split.hh"

namespace obi::blocks {

namespace {

std::unique_ptr<HsDatabase> compile(const ElementArgs& args) {
  ConfigReader c(args);
  if (args.config.is_object())
    for (auto it = args.config.begin(); it != args.config.end(); ++it)
      if (it.key() != "strings" && it.key() != "case_insensitive" && it.key() != "payload_only")
        c.fail(it.key(), "unknown field (known: strings, case_insensitive, payload_only)");
  auto strings = c.strings("strings", true);
  if (strings.size() >= kDropOutput) c.fail("strings", "too many strings (at most 65534)");
  const bool caseless = c.boolean("case_insensitive", false);
  std::vector<std::string> exprs;
  for (size_t i = 0; i < strings.size(); ++i) {
    if (strings[i].empty()) c.fail("strings", "entry " + std::to_string(i) + " is empty");
    exprs.push_back(HsDatabase::escape_literal(strings[i]));
  }
  std::vector<unsigned> flags(exprs.size(), HS_FLAG_SINGLEMATCH | (caseless ? HS_FLAG_CASELESS : 0u));
  return std::make_unique<HsDatabase>(exprs, flags, args.workers, c.where("strings"));
}

}  // namespace

StringClassifierElement::StringClassifierElement(const ElementArgs& args)
    : db_(compile(args)),
      payload_only_(ConfigReader(args).boolean("payload_only", false)),
      stats_(static_cast<uint32_t>(db_->size()), args.workers) {}

void StringClassifierElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  const bool payload_only = payload_only_.load(std::memory_order_relaxed);
  uint16_t outs[kBatchSize];
  for (uint32_t i = 0; i < batch.n; ++i) {
    ScanRegion r = scan_region(*batch.pkts[i], payload_only);
    unsigned best = kDropOutput;
    db_->scan(ctx.worker, r.data, r.len, [&](unsigned id, uint64_t, uint64_t) {
      if (id < best) best = id;
      return best == 0;   // nothing can beat string 0
    });
    outs[i] = static_cast<uint16_t>(best);
  }
  emit_by_output(batch, outs, ctx, out, [&](uint16_t o, uint32_t packets, uint64_t bytes) {
    if (o != kDropOutput) stats_.add(ctx.worker, o, packets, bytes, ctx.now_ns);
  });
}

nlohmann::json StringClassifierElement::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  if (handle == "payload_only") return payload_only_.load();
  return Element::read(handle);
}

void StringClassifierElement::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  if (handle == "payload_only") { payload_only_ = handle_bool(value, name(), handle); return; }
  Element::write(handle, value);
}

OBI_REGISTER_ELEMENT(StringClassifier, StringClassifierElement);

}  // namespace obi::blocks
