// EncapsulateMetadata (spec 5.39, modifier): wraps the packet in NSH (RFC 8300, MD type
// 2) carrying its key-value metadata, so that another OBI, running DecapsulateMetadata,
// continues the pipeline with the same metadata (wire format: lib/nsh.hh). The outer
// Ethernet header repeats the frame's MAC addresses with EtherType 0x894F.
//
// The NSH header takes up to 198 bytes in front of the frame: a frame longer than its
// buffer allows then is dropped and counted in `dropped`.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/EncapsulateMetadata.json.
// Example: {"name": "to_obi2", "type": "EncapsulateMetadata", "config": {"spi": 42, "keys": ["app"]}}
#pragma once

#include <string>
#include <vector>

#include "engine/element.hh"
#include "lib/counts.hh"

namespace obi {

class EncapsulateMetadataElement final : public Element {
 public:
  explicit EncapsulateMetadataElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  bool encapsulate(Packet& p) const;
  bool carried(const MetaEntry& e) const;

  uint32_t spi_ = 0;
  uint8_t si_ = 255;
  bool all_keys_ = true;
  std::vector<std::string> keys_;
  enum { kEncapsulated, kDropped };
  blocks::Counts<2> counts_;
};

}  // namespace obi
