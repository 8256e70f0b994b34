// Typed header views: named fields over the bytes of a packet's headers, at the offsets
// the engine's parser recorded (Packet::headers(): l3, l4, eth_type, vlan_count), in
// place of raw offsets such as ip[8] or d + h.l3 + 12.
//
//   const Headers& h = p.headers();
//   if (auto ip = ipv4(p, h)) {            // IPv4 and its fixed header inside the frame
//     uint8_t ttl = ip.ttl();
//     ip.set_ttl(ttl - 1);                  // checksum: lib/checksum.hh
//   }
//   if (auto t = tcp(p, h)) flags = t.flags();
//
// A view is a pointer to the first byte of its header; the accessor functions return an
// empty view (false) when the layer is absent or its fixed part is not inside the
// frame, so every field read through a non-empty view is in bounds. Fields past the
// fixed part (IPv4 options, TCP options) are the caller's to bound (header_len()).
// Const packets give views of const bytes, whose setters do not exist.
#pragma once

#include <cstdint>
#include <type_traits>

#include "engine/packet.hh"
#include "lib/bytes.hh"

namespace obi::hdr {

template <typename Byte>
struct View {
  Byte* p = nullptr;
  explicit operator bool() const { return p != nullptr; }
  Byte* data() const { return p; }

 protected:
  static constexpr bool kMutable = !std::is_const_v<Byte>;
  uint16_t be16(unsigned off) const { return load_be16(p + off); }
  uint32_t be32(unsigned off) const { return load_be32(p + off); }
};

// Ethernet II: destination and source MAC, EtherType (of the frame, before any VLAN tag).
template <typename Byte>
struct EthernetT : View<Byte> {
  using View<Byte>::p;
  static constexpr uint32_t kLen = 14;
  static constexpr unsigned kDst = 0, kSrc = 6, kType = 12;
  Byte* dst() const { return p + kDst; }
  Byte* src() const { return p + kSrc; }
  uint64_t dst_mac() const { return load_be48(p + kDst); }
  uint64_t src_mac() const { return load_be48(p + kSrc); }
  uint16_t type() const { return this->be16(kType); }
  void set_type(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kType, v); }
};

// One 802.1Q / 802.1ad tag as it sits after the MACs: TPID, TCI, then the next EtherType.
template <typename Byte>
struct VlanT : View<Byte> {
  using View<Byte>::p;
  static constexpr uint32_t kLen = 4;
  static constexpr unsigned kTpid = 0, kTci = 2, kInnerType = 4;
  uint16_t tpid() const { return this->be16(kTpid); }
  uint16_t tci() const { return this->be16(kTci); }
  uint16_t vid() const { return tci() & 0x0fff; }
  uint8_t pcp() const { return static_cast<uint8_t>(tci() >> 13); }
  bool dei() const { return (tci() >> 12) & 1; }
  uint16_t inner_type() const { return this->be16(kInnerType); }
  void set_tci(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kTci, v); }
};

template <typename Byte>
struct Ipv4T : View<Byte> {
  using View<Byte>::p;
  static constexpr uint32_t kMinLen = 20;
  static constexpr unsigned kTos = 1, kTotalLen = 2, kId = 4, kFrag = 6, kTtl = 8, kProto = 9, kChecksum = 10,
                            kSrc = 12, kDst = 16;
  uint8_t version() const { return p[0] >> 4; }
  uint32_t header_len() const { return (p[0] & 0x0fu) * 4u; }  // 20..60, options included
  uint8_t tos() const { return p[kTos]; }
  uint8_t dscp() const { return p[kTos] >> 2; }
  uint8_t ecn() const { return p[kTos] & 3; }
  uint16_t total_len() const { return this->be16(kTotalLen); }
  uint16_t id() const { return this->be16(kId); }
  uint16_t frag_offset() const { return this->be16(kFrag) & 0x1fff; }  // in 8-byte units
  bool more_fragments() const { return this->be16(kFrag) & 0x2000; }
  uint8_t ttl() const { return p[kTtl]; }
  uint8_t proto() const { return p[kProto]; }
  uint16_t checksum() const { return this->be16(kChecksum); }
  uint32_t src() const { return this->be32(kSrc); }
  uint32_t dst() const { return this->be32(kDst); }
  Byte* src_bytes() const { return p + kSrc; }
  Byte* dst_bytes() const { return p + kDst; }
  Byte* options() const { return p + kMinLen; }  // header_len() - 20 bytes
  // The 16-bit words ttl|proto and version/ihl|tos, as the checksum update takes them.
  uint16_t ttl_proto_word() const { return this->be16(kTtl); }
  uint16_t ver_tos_word() const { return this->be16(0); }

  void set_tos(uint8_t v) const requires View<Byte>::kMutable { p[kTos] = v; }
  void set_total_len(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kTotalLen, v); }
  void set_ttl(uint8_t v) const requires View<Byte>::kMutable { p[kTtl] = v; }
  void set_proto(uint8_t v) const requires View<Byte>::kMutable { p[kProto] = v; }
  void set_checksum(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kChecksum, v); }
  void set_src(uint32_t v) const requires View<Byte>::kMutable { store_be32(p + kSrc, v); }
  void set_dst(uint32_t v) const requires View<Byte>::kMutable { store_be32(p + kDst, v); }
};

// IPv6 fixed header; the engine's l4 offset is past any extension headers it walked.
template <typename Byte>
struct Ipv6T : View<Byte> {
  using View<Byte>::p;
  static constexpr uint32_t kLen = 40;
  static constexpr unsigned kPayloadLen = 4, kNextHeader = 6, kHopLimit = 7, kSrc = 8, kDst = 24;
  uint8_t version() const { return p[0] >> 4; }
  uint8_t traffic_class() const { return static_cast<uint8_t>(this->be16(0) >> 4); }
  uint32_t flow_label() const { return this->be32(0) & 0xfffff; }
  uint16_t payload_len() const { return this->be16(kPayloadLen); }
  uint8_t next_header() const { return p[kNextHeader]; }  // of the fixed header
  uint8_t hop_limit() const { return p[kHopLimit]; }
  Byte* src() const { return p + kSrc; }  // 16 bytes
  Byte* dst() const { return p + kDst; }
  void set_hop_limit(uint8_t v) const requires View<Byte>::kMutable { p[kHopLimit] = v; }
  void set_payload_len(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kPayloadLen, v); }
};

template <typename Byte>
struct TcpT : View<Byte> {
  using View<Byte>::p;
  static constexpr uint32_t kMinLen = 20;
  static constexpr unsigned kSrcPort = 0, kDstPort = 2, kSeq = 4, kAck = 8, kOffset = 12, kFlags = 13, kWindow = 14,
                            kChecksum = 16, kUrgent = 18;
  static constexpr uint8_t kFin = 0x01, kSyn = 0x02, kRst = 0x04, kPsh = 0x08, kAckFlag = 0x10, kUrg = 0x20;
  uint16_t src_port() const { return this->be16(kSrcPort); }
  uint16_t dst_port() const { return this->be16(kDstPort); }
  uint32_t seq() const { return this->be32(kSeq); }
  uint32_t ack() const { return this->be32(kAck); }
  uint32_t header_len() const { return (p[kOffset] >> 4) * 4u; }  // options included
  uint8_t flags() const { return p[kFlags]; }
  uint16_t window() const { return this->be16(kWindow); }
  uint16_t checksum() const { return this->be16(kChecksum); }
  Byte* checksum_bytes() const { return p + kChecksum; }
  void set_src_port(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kSrcPort, v); }
  void set_dst_port(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kDstPort, v); }
  void set_seq(uint32_t v) const requires View<Byte>::kMutable { store_be32(p + kSeq, v); }
  void set_ack(uint32_t v) const requires View<Byte>::kMutable { store_be32(p + kAck, v); }
  void set_window(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kWindow, v); }
  void set_checksum(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kChecksum, v); }
};

template <typename Byte>
struct UdpT : View<Byte> {
  using View<Byte>::p;
  static constexpr uint32_t kLen = 8;
  static constexpr unsigned kSrcPort = 0, kDstPort = 2, kLength = 4, kChecksum = 6;
  uint16_t src_port() const { return this->be16(kSrcPort); }
  uint16_t dst_port() const { return this->be16(kDstPort); }
  uint16_t length() const { return this->be16(kLength); }
  uint16_t checksum() const { return this->be16(kChecksum); }
  Byte* checksum_bytes() const { return p + kChecksum; }
  void set_src_port(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kSrcPort, v); }
  void set_dst_port(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kDstPort, v); }
  void set_length(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kLength, v); }
  void set_checksum(uint16_t v) const requires View<Byte>::kMutable { store_be16(p + kChecksum, v); }
};

// ICMP and ICMPv6 share the first four bytes.
template <typename Byte>
struct IcmpT : View<Byte> {
  using View<Byte>::p;
  static constexpr uint32_t kMinLen = 4;
  static constexpr unsigned kType = 0, kCode = 1, kChecksum = 2;
  uint8_t type() const { return p[kType]; }
  uint8_t code() const { return p[kCode]; }
  uint16_t checksum() const { return this->be16(kChecksum); }
};

using Ethernet = EthernetT<uint8_t>;
using Vlan = VlanT<uint8_t>;
using Ipv4 = Ipv4T<uint8_t>;
using Ipv6 = Ipv6T<uint8_t>;
using Tcp = TcpT<uint8_t>;
using Udp = UdpT<uint8_t>;
using Icmp = IcmpT<uint8_t>;

namespace detail {
template <template <typename> class V, typename Byte>
V<Byte> at(Byte* data, uint32_t len, uint32_t off, uint32_t need) {
  V<Byte> v;
  if (off != kNoOffset && off + need <= len) v.p = data + off;
  return v;
}
template <typename P>
using ByteOf = std::conditional_t<std::is_const_v<P>, const uint8_t, uint8_t>;
}  // namespace detail

// The views of packet `p` with parsed headers `h` (p.headers()); empty when absent or truncated.
template <typename P>
EthernetT<detail::ByteOf<P>> ethernet(P& p) {
  return detail::at<EthernetT>(static_cast<detail::ByteOf<P>*>(p.data), p.len, 0, Ethernet::kLen);
}
// The i-th VLAN tag (0: outer) of the tags the parser counted.
template <typename P>
VlanT<detail::ByteOf<P>> vlan(P& p, const Headers& h, unsigned i = 0) {
  if (i >= h.vlan_count) return {};
  return detail::at<VlanT>(static_cast<detail::ByteOf<P>*>(p.data), p.len, 12 + 4 * i, Vlan::kLen + 2);
}
template <typename P>
Ipv4T<detail::ByteOf<P>> ipv4(P& p, const Headers& h) {
  if (h.eth_type != kEthIpv4) return {};
  return detail::at<Ipv4T>(static_cast<detail::ByteOf<P>*>(p.data), p.len, h.l3, Ipv4::kMinLen);
}
template <typename P>
Ipv6T<detail::ByteOf<P>> ipv6(P& p, const Headers& h) {
  if (h.eth_type != kEthIpv6) return {};
  return detail::at<Ipv6T>(static_cast<detail::ByteOf<P>*>(p.data), p.len, h.l3, Ipv6::kLen);
}
template <typename P>
TcpT<detail::ByteOf<P>> tcp(P& p, const Headers& h) {
  if (h.ip_proto != kIpProtoTcp) return {};
  return detail::at<TcpT>(static_cast<detail::ByteOf<P>*>(p.data), p.len, h.l4, Tcp::kMinLen);
}
template <typename P>
UdpT<detail::ByteOf<P>> udp(P& p, const Headers& h) {
  if (h.ip_proto != kIpProtoUdp) return {};
  return detail::at<UdpT>(static_cast<detail::ByteOf<P>*>(p.data), p.len, h.l4, Udp::kLen);
}
template <typename P>
IcmpT<detail::ByteOf<P>> icmp(P& p, const Headers& h) {
  if (h.ip_proto != kIpProtoIcmp && h.ip_proto != kIpProtoIcmp6) return {};
  return detail::at<IcmpT>(static_cast<detail::ByteOf<P>*>(p.data), p.len, h.l4, Icmp::kMinLen);
}

}  // namespace obi::hdr
