#include "VlanDecapsulate.hh"

#include "common/block_spec.hh"

#include <cstring>

#include "modify/bytes.hh"
#include "modify/config.hh"

namespace obi {

VlanDecapsulateElement::VlanDecapsulateElement(const ElementArgs& args) {
  modify::ConfigReader c(args);   // refuses a config that is not an object
}

void VlanDecapsulateElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    if (p->len < 18) continue;
    uint8_t* d = p->data;
    uint16_t tpid = modify::rd16(d + 12);
    if (tpid != 0x8100 && tpid != 0x88a8 && tpid != 0x9100) continue;
    std::memmove(d + 4, d, 12);
    p->pull_front(4);
  }
  out.emit(0, batch, ctx);
}

OBI_REGISTER_BLOCK(VlanDecapsulate, VlanDecapsulateElement);

}  // namespace obi
