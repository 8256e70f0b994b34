// ReadMetadata (spec 5.41, classifier): classifies packets by one key of their key-value
// metadata (engine/metadata.hh), written earlier by WriteMetadata or DecapsulateMetadata.
// Output i+1 takes the packets whose metadata[key] equals values[i] (the first equal
// value wins; an integer never equals a string); output 0 takes the packets without the
// key or with a value not listed.
//
// Ports:   1 input; outputs 0 (no match) and 1..n (one per value).
// Config keys, handles and port counts: blocks/catalogue/ReadMetadata.json.
// Example: {"name": "by_app", "type": "ReadMetadata", "config": {"key": "app", "values": ["ips", "fw"]}}
#pragma once

#include <string>
#include <vector>

#include "engine/element.hh"
#include "engine/metadata.hh"
#include "lib/output_stats.hh"

namespace obi {

class ReadMetadataElement final : public Element {
 public:
  explicit ReadMetadataElement(const ElementArgs& args);

  uint16_t output_count() const override { return static_cast<uint16_t>(values_.size() + 1); }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  std::string key_;
  std::vector<MetaValue> values_;
  blocks::OutputStats stats_;
};

}  // namespace obi
