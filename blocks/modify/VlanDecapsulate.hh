// VlanDecapsulate (spec 5.11, modifier): strips the outer VLAN tag, if there is one.
//
// A frame whose EtherType (after the MACs) is 0x8100, 0x88a8 or 0x9100 loses those 4
// bytes (the MACs move 4 bytes towards the payload; nothing else is copied). Any other
// frame, including one too short to hold a tag, passes unchanged. Only one tag is
// removed per block: QinQ frames need two blocks to become untagged.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/VlanDecapsulate.json.
// Example: {"name": "untag", "type": "VlanDecapsulate", "config": {}}
#pragma once

#include "engine/element.hh"

namespace obi {

class VlanDecapsulateElement final : public Element {
 public:
  explicit VlanDecapsulateElement(const ElementArgs& args);
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
};

}  // namespace obi
