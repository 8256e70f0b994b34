#include "VlanEncapsulate.hh"

#include <cstring>

#include "modify/bytes.hh"
#include "modify/config.hh"

namespace obi {

using modify::handle_where;
using modify::parse_integer;

VlanEncapsulateElement::VlanEncapsulateElement(const ElementArgs& args) {
  modify::ConfigReader c(args);
  c.only({"vlan_vid", "vlan_dei", "vlan_pcp", "ethertype"});
  uint32_t vid = static_cast<uint32_t>(c.required_integer("vlan_vid", 0, 4095));
  uint32_t dei = static_cast<uint32_t>(c.integer("vlan_dei", 0, 0, 1));
  uint32_t pcp = static_cast<uint32_t>(c.integer("vlan_pcp", 0, 0, 7));
  uint32_t tpid = static_cast<uint32_t>(c.integer("ethertype", 0x8100, 0x600, 0xffff));
  tag_.store(tpid << 16 | pcp << 13 | dei << 12 | vid);
}

void VlanEncapsulateElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  const uint32_t tag = tag_.load(std::memory_order_relaxed);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    uint8_t* d = p->len >= 14 ? p->push_front(4) : nullptr;
    if (d == nullptr) { ctx.drop(p); continue; }
    std::memmove(d, d + 4, 12);
    modify::wr32(d + 12, tag);
    batch.pkts[kept++] = p;
  }
  batch.n = kept;
  out.emit(0, batch, ctx);
}

nlohmann::json VlanEncapsulateElement::read(std::string_view h) const {
  uint32_t t = tag_.load(std::memory_order_relaxed);
  if (h == "vlan_vid") return t & 0xfff;
  if (h == "vlan_pcp") return (t >> 13) & 7;
  if (h == "vlan_dei") return (t >> 12) & 1;
  if (h == "vlan_tci") return t & 0xffff;
  if (h == "ethertype") return t >> 16;
  return Element::read(h);
}

void VlanEncapsulateElement::write(std::string_view h, const nlohmann::json& v) {
  uint32_t t = tag_.load(std::memory_order_relaxed);
  auto w = handle_where(*this, h);
  if (h == "vlan_vid") t = (t & ~0xfffu) | uint32_t(parse_integer(v, w, 0, 4095));
  else if (h == "vlan_pcp") t = (t & ~(7u << 13)) | uint32_t(parse_integer(v, w, 0, 7)) << 13;
  else if (h == "vlan_dei") t = (t & ~(1u << 12)) | uint32_t(parse_integer(v, w, 0, 1)) << 12;
  else if (h == "vlan_tci") t = (t & 0xffff0000u) | uint32_t(parse_integer(v, w, 0, 0xffff));
  else if (h == "ethertype") t = (t & 0xffffu) | uint32_t(parse_integer(v, w, 0x600, 0xffff)) << 16;
  else return Element::write(h, v);
  tag_.store(t, std::memory_order_relaxed);
}

OBI_REGISTER_ELEMENT(VlanEncapsulate, VlanEncapsulateElement);

}  // namespace obi
