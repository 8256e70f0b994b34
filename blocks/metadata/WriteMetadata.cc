#include "WriteMetadata.hh"

#include "lib/block_spec.hh"

#include "lib/config.hh"
#include "lib/meta_config.hh"

namespace obi {

using namespace blocks;

WriteMetadataElement::WriteMetadataElement(const ElementArgs& args) : counts_(args.workers) {
  ConfigReader c(args);
  const nlohmann::json& v = c.require("values");
  if (!v.is_object() || v.empty()) c.where("values").expected("a non-empty object of keys and values", v);
  if (v.size() > kMetaEntries)
    c.fail("values", "expected at most " + std::to_string(kMetaEntries) + " keys (a packet's metadata), got " +
                         std::to_string(v.size()));
  for (auto it = v.begin(); it != v.end(); ++it) {
    const Where w = c.where("values").key(it.key());
    std::string key = parse_meta_key(nlohmann::json(it.key()), w);
    entries_.push_back({key, parse_meta_value(it.value(), w)});
  }
}

void WriteMetadataElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  uint64_t full = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    MetaStore& m = batch.pkts[i]->values;
    bool ok = true;
    for (const Entry& e : entries_) ok &= m.set(e.key, e.value);
    full += !ok;
  }
  counts_.add(ctx.worker, kWritten, batch.n - full);
  counts_.add(ctx.worker, kFull, full);
  out.emit(0, batch, ctx);
}

nlohmann::json WriteMetadataElement::read(std::string_view h) const {
  if (h == "count") return counts_.get(kWritten);
  if (h == "full") return counts_.get(kFull);
  return Element::read(h);
}

void WriteMetadataElement::write(std::string_view h, const nlohmann::json& v) {
  if (h == "reset_counts") counts_.reset();
  else Element::write(h, v);
}

OBI_REGISTER_BLOCK(WriteMetadata, WriteMetadataElement);

}  // namespace obi
