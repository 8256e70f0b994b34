#include "lib/flow_table.hh"

#include "lib/fields.hh"
#include "lib/headers.hh"

namespace obi::blocks {

uint64_t FlowKey::hash() const {
  auto mix = [](uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
  };
  uint64_t h = mix(static_cast<uint64_t>(addr_lo) ^ static_cast<uint64_t>(addr_lo >> 64) * 31);
  h = mix(h ^ static_cast<uint64_t>(addr_hi) ^ static_cast<uint64_t>(addr_hi >> 64) * 37);
  return mix(h ^ (uint64_t(port_lo) << 32 | uint64_t(port_hi) << 16 | uint64_t(proto) << 8 | ipv6));
}

bool flow_key(Packet& p, FlowKey& k, bool& reversed) {
  const Headers& h = p.headers();
  u128 src, dst;
  if (auto ip = hdr::ipv4(p, h)) {
    src = ip.src();
    dst = ip.dst();
    k.ipv6 = 0;
  } else if (auto ip6 = hdr::ipv6(p, h)) {
    src = load_be128(ip6.src());
    dst = load_be128(ip6.dst());
    k.ipv6 = 1;
  } else {
    return false;
  }
  uint16_t sp = 0, dp = 0;
  // TCP, UDP and SCTP all start with the two ports
  bool ports = h.ip_proto == kIpProtoTcp || h.ip_proto == kIpProtoUdp || h.ip_proto == kIpProtoSctp;
  if (ports && h.l4 != kNoOffset && h.l4 + 4u <= p.len) {
    sp = load_be16(p.data + h.l4);
    dp = load_be16(p.data + h.l4 + 2);
  }
  k.proto = h.ip_proto;
  reversed = dst < src || (dst == src && dp < sp);
  if (reversed) {
    k.addr_lo = dst;
    k.addr_hi = src;
    k.port_lo = dp;
    k.port_hi = sp;
  } else {
    k.addr_lo = src;
    k.addr_hi = dst;
    k.port_lo = sp;
    k.port_hi = dp;
  }
  k.pad = 0;
  return true;
}

}  // namespace obi::blocks
