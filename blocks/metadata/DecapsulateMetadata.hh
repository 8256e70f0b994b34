// DecapsulateMetadata (spec 5.42, modifier): removes the NSH header that
// EncapsulateMetadata put in front of a frame (outer Ethernet with EtherType 0x894F, NSH
// base, service path and MD type 2 context headers; lib/nsh.hh) and writes the
// metadata it carries into the packet's key-value metadata, so ReadMetadata in this OBI
// classifies on values written in another. Context headers of other classes are skipped.
// Frames that are not NSH pass unchanged; an NSH frame that breaks the format (version,
// lengths, next protocol other than Ethernet, a bad metadata TLV) is dropped and counted
// in `malformed`; metadata that finds no free entry is counted in `full`.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/DecapsulateMetadata.json.
// Example: {"name": "from_obi1", "type": "DecapsulateMetadata", "config": {}}
#pragma once

#include "engine/element.hh"
#include "lib/counts.hh"

namespace obi {

class DecapsulateMetadataElement final : public Element {
 public:
  explicit DecapsulateMetadataElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

  enum Outcome { kPlain, kDecapsulated, kMalformed };
  // Decapsulates p in place (its metadata gains the carried entries; `full` is set when
  // some found no free entry).
  static Outcome decapsulate(Packet& p, bool& full);

 private:
  enum { kCount, kMalformedCount, kFull };
  blocks::Counts<3> counts_;
};

}  // namespace obi
