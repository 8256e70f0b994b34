#include "VlanDecapsulate.hh"

#include "lib/block_spec.hh"

#include <cstring>

#include "lib/bytes.hh"
#include "lib/config.hh"
#include "lib/headers.hh"

namespace obi {

VlanDecapsulateElement::VlanDecapsulateElement(const ElementArgs& args) {
  blocks::ConfigReader c(args);  // refuses a config that is not an object
}

void VlanDecapsulateElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    if (p->len < hdr::Ethernet::kLen + hdr::Vlan::kLen) continue;
    const auto eth = hdr::ethernet(*p);
    const uint16_t tpid = eth.type();
    if (tpid != kEthVlan && tpid != kEthQinQ && tpid != 0x9100) continue;
    std::memmove(eth.data() + hdr::Vlan::kLen, eth.data(), hdr::Ethernet::kType);  // the MACs
    p->pull_front(4);
  }
  out.emit(0, batch, ctx);
}

OBI_REGISTER_BLOCK(VlanDecapsulate, VlanDecapsulateElement);

}  // namespace obi
