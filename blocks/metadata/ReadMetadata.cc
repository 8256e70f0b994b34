#include "ReadMetadata.hh"

#include "lib/block_spec.hh"

#include "lib/config.hh"
#include "lib/meta_config.hh"
#include "lib/split.hh"

namespace obi {

using namespace blocks;

namespace {
std::vector<MetaValue> parse_values(const ConfigReader& c) {
  const nlohmann::json& v = c.require("values");
  if (!v.is_array() || v.empty()) c.where("values").expected("a non-empty array of integers or strings", v);
  if (v.size() >= 65535) c.fail("values", "expected at most 65534 values, got " + std::to_string(v.size()));
  std::vector<MetaValue> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(parse_meta_value(v[i], c.where("values").at(i)));
  return out;
}
}  // namespace

ReadMetadataElement::ReadMetadataElement(const ElementArgs& args) : stats_(1, 1) {
  ConfigReader c(args);
  key_ = parse_meta_key(c.require("key"), c.where("key"));
  values_ = parse_values(c);
  stats_ = blocks::OutputStats(static_cast<uint32_t>(values_.size() + 1), args.workers);
}

void ReadMetadataElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  uint16_t outs[kBatchSize];
  const size_t n = values_.size();
  for (uint32_t i = 0; i < batch.n; ++i) {
    const MetaValue* v = batch.pkts[i]->values.find(key_);
    uint16_t o = 0;
    if (v)
      for (size_t j = 0; j < n; ++j)
        if (values_[j] == *v) {
          o = static_cast<uint16_t>(j + 1);
          break;
        }
    outs[i] = o;
  }
  blocks::emit_by_output(batch, outs, ctx, out, [&](uint16_t o, uint32_t packets, uint64_t bytes) {
    stats_.add(ctx.worker, o, packets, bytes, ctx.now_ns);
  });
}

nlohmann::json ReadMetadataElement::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  return Element::read(handle);
}

void ReadMetadataElement::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  Element::write(handle, value);
}

OBI_REGISTER_BLOCK(ReadMetadata, ReadMetadataElement);

}  // namespace obi
