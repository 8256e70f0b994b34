// PacketFields: the header fields of the packet behind an alert, as an analyst reads them.
//
// Copied from the packet's parsed headers when a block posts an alert (fixed size, no
// allocation, no parse when a classifier already parsed the packet), turned into text on
// the control thread: the Ethernet addresses and type, the IPv4 / IPv6 addresses and
// protocol, the TCP / UDP / SCTP ports or the ICMP / ICMPv6 type and code, whichever the
// packet carries. A non-first fragment has addresses and protocol but no ports.
#pragma once

#include <cstdint>
#include <string>

#include "engine/packet.hh"
#include "openbox/messages.hh"

namespace obi {

struct PacketFields {
  enum : uint8_t { kEth = 1, kIpv4 = 2, kIpv6 = 4, kPorts = 8, kIcmp = 16 };
  uint8_t present = 0;  // kEth | kIpv4 | ... : which of the fields below are set
  uint8_t ip_proto = 0;
  uint16_t eth_type = 0;                // after VLAN tags
  uint16_t src_port = 0, dst_port = 0;  // kIcmp: type and code
  uint8_t eth_src[6] = {}, eth_dst[6] = {};
  uint8_t src_ip[16] = {}, dst_ip[16] = {};  // IPv4 in the first 4 bytes

  // Fills every field from `p` (parsing its headers first if nobody has).
  void capture(Packet& p);

  bool has(uint8_t what) const { return (present & what) != 0; }
  uint8_t icmp_type() const { return static_cast<uint8_t>(src_port); }
  uint8_t icmp_code() const { return static_cast<uint8_t>(dst_port); }
  // "02:00:00:00:00:01"; "10.0.0.1" or "2001:db8::1" (RFC 5952).
  static std::string mac_text(const uint8_t* mac);
  std::string ip_text(bool source) const;
  // Sets the protocol's optional Alert entry fields (packet_timestamp when > 0, then
  // eth_type; eth_src/eth_dst for a packet without IP; src_ip, dst_ip, ip_proto; ports or
  // icmp_type/icmp_code) from what was captured.
  void add_to(openbox::EventEntry& en, double packet_timestamp) const;
};
static_assert(sizeof(PacketFields) == 52, "a fixed, small copy per alert");

}  // namespace obi
