#include "VlanEncapsulate.hh"

#include "lib/block_spec.hh"

#include <cstring>

#include "lib/bytes.hh"
#include "lib/config.hh"
#include "lib/headers.hh"

namespace obi {

using blocks::handle_where;
using blocks::parse_integer;

VlanEncapsulateElement::VlanEncapsulateElement(const ElementArgs& args) {
  blocks::ConfigReader c(args);
  uint32_t vid = static_cast<uint32_t>(c.required_integer("vlan_vid", 0, 4095));
  uint32_t dei = static_cast<uint32_t>(c.integer("vlan_dei", 0, 0, 1));
  uint32_t pcp = static_cast<uint32_t>(c.integer("vlan_pcp", 0, 0, 7));
  uint32_t tpid = static_cast<uint32_t>(c.integer("ethertype", kEthVlan, 0x600, 0xffff));
  tag_.store(tpid << 16 | pcp << 13 | dei << 12 | vid);
}

void VlanEncapsulateElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  const uint32_t tag = tag_.load(std::memory_order_relaxed);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet* p = batch.pkts[i];
    uint8_t* d = p->len >= 14 ? p->push_front(4) : nullptr;
    if (d == nullptr) {
      ctx.drop(p);
      continue;
    }
    std::memmove(d, d + hdr::Vlan::kLen, hdr::Ethernet::kType);  // the MACs
    store_be32(d + hdr::Ethernet::kType, tag);                   // TPID and TCI
    batch.pkts[kept++] = p;
  }
  batch.n = kept;
  out.emit(0, batch, ctx);
}

nlohmann::json VlanEncapsulateElement::read(std::string_view h) const {
  using Read = spec::VlanEncapsulate::Read;
  uint32_t t = tag_.load(std::memory_order_relaxed);
  auto id = spec::VlanEncapsulate::read_id(h);
  if (!id) return Element::read(h);
  switch (*id) {
    case Read::kVlanVid: return t & 0xfff;
    case Read::kVlanPcp: return (t >> 13) & 7;
    case Read::kVlanDei: return (t >> 12) & 1;
    case Read::kVlanTci: return t & 0xffff;
    case Read::kEthertype: return t >> 16;
  }
  return Element::read(h);
}

void VlanEncapsulateElement::write(std::string_view h, const nlohmann::json& v) {
  using Write = spec::VlanEncapsulate::Write;
  auto id = spec::VlanEncapsulate::write_id(h);
  if (!id) return Element::write(h, v);
  uint32_t t = tag_.load(std::memory_order_relaxed);
  auto w = handle_where(*this, h);
  switch (*id) {
    case Write::kVlanVid: t = (t & ~0xfffu) | uint32_t(parse_integer(v, w, 0, 4095)); break;
    case Write::kVlanPcp: t = (t & ~(7u << 13)) | uint32_t(parse_integer(v, w, 0, 7)) << 13; break;
    case Write::kVlanDei: t = (t & ~(1u << 12)) | uint32_t(parse_integer(v, w, 0, 1)) << 12; break;
    case Write::kVlanTci: t = (t & 0xffff0000u) | uint32_t(parse_integer(v, w, 0, 0xffff)); break;
    case Write::kEthertype: t = (t & 0xffffu) | uint32_t(parse_integer(v, w, 0x600, 0xffff)) << 16; break;
  }
  tag_.store(t, std::memory_order_relaxed);
}

OBI_REGISTER_BLOCK(VlanEncapsulate, VlanEncapsulateElement);

}  // namespace obi
