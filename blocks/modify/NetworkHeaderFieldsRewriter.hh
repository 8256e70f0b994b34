// NetworkHeaderFieldsRewriter (spec 5.14, modifier): sets chosen header fields to
// fixed values.
//
// Each configured field is written into every packet that has that header: Ethernet
// fields into every frame of at least 14 bytes (eth_type is the EtherType after any
// VLAN tags), IPv4 fields into IPv4 packets, tcp_* / udp_* into TCP / UDP packets (over
// IPv4 or IPv6; first fragments only). Packets without the header pass with that field
// untouched; no packet is ever dropped. Unlike the spec's minimum, checksums stay
// valid: the IPv4 header checksum and the TCP/UDP checksum (pseudo-header included)
// are patched incrementally (RFC 1624); a zero UDP checksum ("none") stays zero.
//
// Ports:   1 input, 1 output.
// Config keys, handles and port counts: blocks/catalogue/NetworkHeaderFieldsRewriter.json.
// Each config field is also a read/write handle of the same syntax: a read gives null
// for a field that is not set, writing null stops rewriting that field.
// Example: {"name": "rw", "type": "NetworkHeaderFieldsRewriter",
//           "config": {"ipv4_dst": "10.0.0.5", "tcp_dst": 8080, "ipv4_dscp": 46}}
#pragma once

#include <array>
#include <atomic>

#include "engine/element.hh"

namespace obi {

class NetworkHeaderFieldsRewriterElement final : public Element {
 public:
  enum Field : uint8_t {
    kEthDst,
    kEthSrc,
    kEthType,
    kIpv4Proto,
    kIpv4Src,
    kIpv4Dst,
    kIpv4Dscp,
    kIpv4Ecn,
    kIpv4Ttl,
    kTcpSrc,
    kTcpDst,
    kUdpSrc,
    kUdpDst,
    kFieldCount
  };

  explicit NetworkHeaderFieldsRewriterElement(const ElementArgs& args);

  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  static constexpr uint64_t kSet = 1ull << 63;  // value present
  struct Values {
    uint64_t v[kFieldCount];
    bool has(Field f) const { return v[f] & kSet; }
    uint64_t get(Field f) const { return v[f] & ~kSet; }
  };
  void rewrite(Packet& p, const Values& v) const;

  std::array<std::atomic<uint64_t>, kFieldCount> fields_{};
  std::atomic<bool> any_{false};
};

}  // namespace obi
