#include "lib/fields.hh"

#include "lib/headers.hh"

namespace obi::blocks {

namespace {

// Offset of the first byte after the Ethernet header and its VLAN tags (MPLS, PBB).
inline uint32_t after_ethernet(const Headers& h) { return 14u + 4u * h.vlan_count; }

inline bool has(const Packet& p, uint32_t off, uint32_t n) { return off != kNoOffset && off + n <= p.len; }

inline bool is_ip(const Headers& h) { return (h.eth_type == kEthIpv4 || h.eth_type == kEthIpv6) && h.l3 != kNoOffset; }

// L4 header of protocol `proto` with at least n bytes present.
inline const uint8_t* l4(const Packet& p, const Headers& h, uint8_t proto, uint32_t n) {
  // the parser sets l4 only for a first (or unfragmented) L4 header
  if (!is_ip(h) || h.ip_proto != proto || !has(p, h.l4, n)) return nullptr;
  return p.data + h.l4;
}

// Ethernet/IPv4 ARP body (htype 1, ptype 0x0800, hlen 6, plen 4).
inline const uint8_t* arp(const Packet& p, const Headers& h) {
  if (h.eth_type != kEthArp || !has(p, h.l3, 28)) return nullptr;
  const uint8_t* a = p.data + h.l3;
  if (load_be16(a) != 1 || load_be16(a + 2) != kEthIpv4 || a[4] != 6 || a[5] != 4) return nullptr;
  return a;
}

// IPv6 neighbour discovery: the link-layer address option of type `opt` (1 source,
// 2 target) in a solicitation (135) or advertisement (136).
bool nd_lladdr(const Packet& p, const Headers& h, uint8_t icmp_type, uint8_t opt, u128& out) {
  const uint8_t* icmp = l4(p, h, 58, 24);
  if (!icmp || icmp[0] != icmp_type) return false;
  uint32_t off = h.l4 + 24u;
  while (off + 8 <= p.len) {
    const uint8_t* o = p.data + off;
    if (o[1] == 0) return false;  // malformed: zero length would loop forever
    uint32_t n = o[1] * 8u;
    if (off + n > p.len) return false;
    if (o[0] == opt) {
      out = load_be48(o + 2);
      return true;
    }
    off += n;
  }
  return false;
}

}  // namespace

bool ipv6_exthdr_bits(const Packet& p, const Headers& h, uint16_t& out) {
  if (h.eth_type != kEthIpv6 || !has(p, h.l3, 40)) return false;
  enum : uint16_t {
    NONEXT = 1,
    ESP = 2,
    AUTH = 4,
    DEST = 8,
    FRAG = 16,
    ROUTER = 32,
    HOP = 64,
    UNREP = 128,
    UNSEQ = 256
  };
  uint16_t bits = 0, seen = 0;
  uint8_t next = p.data[h.l3 + 6];
  uint32_t off = h.l3 + 40u;
  for (int guard = 0; guard < 16; ++guard) {
    uint16_t bit = 0;
    switch (next) {
      case 0:
        bit = HOP;
        if (seen) bits |= UNSEQ;
        break;
      case 60: bit = DEST; break;
      case 43: bit = ROUTER; break;
      case 44: bit = FRAG; break;
      case 51: bit = AUTH; break;
      case 50:
        bits |= ESP;
        out = bits;
        return true;  // encrypted: the chain ends here
      case 59:
        bits |= NONEXT;
        out = bits;
        return true;
      default: out = bits; return true;  // an upper-layer protocol
    }
    if (bits & bit) bits |= UNREP;
    bits |= bit;
    ++seen;
    if (off + 8 > p.len) break;
    const uint8_t* e = p.data + off;
    next = e[0];
    off += next == 0xff ? 8u : (bit == FRAG ? 8u : (bit == AUTH ? (e[1] + 2u) * 4u : (e[1] + 1u) * 8u));
  }
  out = bits;
  return true;
}

bool header_matches(Packet& p, const openbox::HeaderMatch& m) {
  for (const auto& fm : m.fields) {
    u128 v;
    if (!extract_field(p, fm.field, v) || !fm.contains(v)) return false;
  }
  return true;
}

bool extract_field(Packet& p, MatchField f, u128& out) {
  const Headers& h = p.headers();
  const uint8_t* d = p.data;
  switch (f) {
    case MatchField::ETH_DST:
      if (p.len < 14) return false;
      out = load_be48(d);
      return true;
    case MatchField::ETH_SRC:
      if (p.len < 14) return false;
      out = load_be48(d + 6);
      return true;
    case MatchField::ETH_TYPE:
      if (p.len < 14) return false;
      out = h.eth_type;
      return true;
    case MatchField::VLAN_VID:
      if (!h.vlan_count) return false;
      out = h.vlan_tci & 0x0fff;
      return true;
    case MatchField::VLAN_PCP:
      if (!h.vlan_count) return false;
      out = h.vlan_tci >> 13;
      return true;
    case MatchField::IP_PROTO:
      if (!is_ip(h)) return false;
      out = h.ip_proto;
      return true;
    case MatchField::IP_DSCP:
    case MatchField::IP_ECN: {
      uint8_t tc;
      if (auto ip = hdr::ipv4(p, h)) tc = ip.tos();
      else if (auto ip6 = hdr::ipv6(p, h)) tc = ip6.traffic_class();
      else return false;
      out = f == MatchField::IP_DSCP ? tc >> 2 : tc & 3;
      return true;
    }
    case MatchField::IPV4_SRC:
    case MatchField::IPV4_DST:
      if (auto ip = hdr::ipv4(p, h)) {
        out = f == MatchField::IPV4_SRC ? ip.src() : ip.dst();
        return true;
      }
      return false;
    case MatchField::TCP_SRC:
    case MatchField::TCP_DST:
    case MatchField::UDP_SRC:
    case MatchField::UDP_DST:
    case MatchField::SCTP_SRC:
    case MatchField::SCTP_DST: {
      uint8_t proto = (f == MatchField::TCP_SRC || f == MatchField::TCP_DST)   ? 6
                      : (f == MatchField::UDP_SRC || f == MatchField::UDP_DST) ? 17
                                                                               : 132;
      const uint8_t* l = l4(p, h, proto, 4);
      if (!l) return false;
      bool src = f == MatchField::TCP_SRC || f == MatchField::UDP_SRC || f == MatchField::SCTP_SRC;
      out = load_be16(l + (src ? 0 : 2));
      return true;
    }
    case MatchField::ICMPV4_TYPE:
    case MatchField::ICMPV4_CODE: {
      if (h.eth_type != kEthIpv4) return false;
      const uint8_t* l = l4(p, h, 1, 2);
      if (!l) return false;
      out = l[f == MatchField::ICMPV4_TYPE ? 0 : 1];
      return true;
    }
    case MatchField::ICMPV6_TYPE:
    case MatchField::ICMPV6_CODE: {
      if (h.eth_type != kEthIpv6) return false;
      const uint8_t* l = l4(p, h, 58, 2);
      if (!l) return false;
      out = l[f == MatchField::ICMPV6_TYPE ? 0 : 1];
      return true;
    }
    case MatchField::ARP_OP: {
      const uint8_t* a = arp(p, h);
      if (!a) return false;
      out = load_be16(a + 6);
      return true;
    }
    case MatchField::ARP_SHA: {
      const uint8_t* a = arp(p, h);
      if (!a) return false;
      out = load_be48(a + 8);
      return true;
    }
    case MatchField::ARP_SPA: {
      const uint8_t* a = arp(p, h);
      if (!a) return false;
      out = load_be32(a + 14);
      return true;
    }
    case MatchField::ARP_THA: {
      const uint8_t* a = arp(p, h);
      if (!a) return false;
      out = load_be48(a + 18);
      return true;
    }
    case MatchField::ARP_TPA: {
      const uint8_t* a = arp(p, h);
      if (!a) return false;
      out = load_be32(a + 24);
      return true;
    }
    case MatchField::IPV6_SRC:
    case MatchField::IPV6_DST:
      if (auto ip6 = hdr::ipv6(p, h)) {
        out = load_be128(f == MatchField::IPV6_SRC ? ip6.src() : ip6.dst());
        return true;
      }
      return false;
    case MatchField::IPV6_FLABEL:
      if (auto ip6 = hdr::ipv6(p, h)) {
        out = ip6.flow_label();
        return true;
      }
      return false;
    case MatchField::IPV6_ND_TARGET: {
      if (h.eth_type != kEthIpv6) return false;
      const uint8_t* l = l4(p, h, 58, 24);
      if (!l || (l[0] != 135 && l[0] != 136)) return false;
      out = load_be128(l + 8);
      return true;
    }
    case MatchField::IPV6_ND_SLL: return h.eth_type == kEthIpv6 && nd_lladdr(p, h, 135, 1, out);
    case MatchField::IPV6_ND_TLL: return h.eth_type == kEthIpv6 && nd_lladdr(p, h, 136, 2, out);
    case MatchField::IPV6_EXTHDR: {
      uint16_t bits;
      if (!ipv6_exthdr_bits(p, h, bits)) return false;
      out = bits;
      return true;
    }
    case MatchField::MPLS_LABEL:
    case MatchField::MPLS_TC:
    case MatchField::MPLS_BOS: {
      uint32_t off = after_ethernet(h);
      if ((h.eth_type != kEthMpls && h.eth_type != kEthMplsMc) || off + 4 > p.len) return false;
      uint32_t lse = load_be32(d + off);
      out = f == MatchField::MPLS_LABEL ? lse >> 12 : f == MatchField::MPLS_TC ? (lse >> 9) & 7 : (lse >> 8) & 1;
      return true;
    }
    case MatchField::PBB_ISID:
    case MatchField::PBB_UCA: {
      uint32_t off = after_ethernet(h);
      if (h.eth_type != kEthPbb || off + 4 > p.len) return false;
      uint32_t itag = load_be32(d + off);
      out = f == MatchField::PBB_ISID ? itag & 0xffffff : (itag >> 27) & 1;
      return true;
    }
    case MatchField::TUNNEL_ID:  // no tunnel metadata is carried by this engine
    case MatchField::kCount: return false;
  }
  return false;
}

}  // namespace obi::blocks
