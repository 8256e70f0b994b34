// WriteMetadata (spec 5.40, modifier): writes configured keys and values into the
// packet's key-value metadata (engine/metadata.hh), for ReadMetadata later in the graph
// or for EncapsulateMetadata to carry to another OBI. An existing key is overwritten; a
// packet whose metadata has no free entry for a new key passes on without that key and
// is counted in `full`.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/WriteMetadata.json.
// Example: {"name": "tag", "type": "WriteMetadata", "config": {"values": {"app": "ips", "mark": 3}}}
#pragma once

#include <string>
#include <vector>

#include "engine/element.hh"
#include "engine/metadata.hh"
#include "lib/counts.hh"

namespace obi {

class WriteMetadataElement final : public Element {
 public:
  explicit WriteMetadataElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  struct Entry {
    std::string key;
    MetaValue value;
  };
  enum { kWritten, kFull };
  std::vector<Entry> entries_;
  blocks::Counts<2> counts_;
};

}  // namespace obi
