// VlanEncapsulate (spec 5.10, modifier): adds an 802.1Q (or 802.1ad / 0x9100) tag.
//
// The tag goes right after the two MAC addresses, in the packet's headroom (the MACs
// move 4 bytes to the front; the rest of the frame is not copied). Frames shorter than
// an Ethernet header (14 bytes) are dropped (ctx.drop), as are frames whose headroom is
// exhausted (never with the pool's 128-byte headroom and fewer than 32 stacked tags).
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/VlanEncapsulate.json.
// A handle write takes effect on the next batch; vlan_tci is PCP<<13 | DEI<<12 | VID.
// Example: {"name": "tag", "type": "VlanEncapsulate",
//           "config": {"vlan_vid": 100, "vlan_pcp": 3, "ethertype": "0x88a8"}}
#pragma once

#include <atomic>

#include "engine/element.hh"

namespace obi {

class VlanEncapsulateElement final : public Element {
 public:
  explicit VlanEncapsulateElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  // TPID in the high 16 bits, TCI in the low 16: one load gives the data path a
  // consistent tag even while a handle write is going on.
  std::atomic<uint32_t> tag_{0};
};

}  // namespace obi
