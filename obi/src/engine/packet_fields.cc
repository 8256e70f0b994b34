#include "engine/packet_fields.hh"

#include <arpa/inet.h>

#include <cstdio>
#include <cstring>

#include "lib/bytes.hh"

namespace obi {

void PacketFields::capture(Packet& p) {
  present = 0;
  if (p.len < 14) return;
  const Headers& h = p.headers();
  const uint8_t* d = p.data;
  present = kEth;
  std::memcpy(eth_dst, d, 6);
  std::memcpy(eth_src, d + 6, 6);
  eth_type = h.eth_type;
  if (h.l3 == kNoOffset) return;
  const uint8_t* l3 = d + h.l3;
  if (h.eth_type == kEthIpv4) {
    present |= kIpv4;
    std::memcpy(src_ip, l3 + 12, 4);
    std::memcpy(dst_ip, l3 + 16, 4);
  } else if (h.eth_type == kEthIpv6) {
    present |= kIpv6;
    std::memcpy(src_ip, l3 + 8, 16);
    std::memcpy(dst_ip, l3 + 24, 16);
  } else {
    return;  // ARP and other L3: the Ethernet fields only
  }
  ip_proto = h.ip_proto;
  if (h.l4 == kNoOffset) return;
  const uint8_t* l4 = d + h.l4;
  if (h.ip_proto == kIpProtoTcp || h.ip_proto == kIpProtoUdp || h.ip_proto == kIpProtoSctp) {
    present |= kPorts;
    src_port = static_cast<uint16_t>(l4[0] << 8 | l4[1]);
    dst_port = static_cast<uint16_t>(l4[2] << 8 | l4[3]);
  } else if (h.ip_proto == kIpProtoIcmp || h.ip_proto == kIpProtoIcmp6) {
    present |= kIcmp;
    src_port = l4[0];
    dst_port = l4[1];
  }
}

std::string PacketFields::mac_text(const uint8_t* m) {
  char s[18];
  std::snprintf(s, sizeof s, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return s;
}

std::string PacketFields::ip_text(bool source) const {
  char s[INET6_ADDRSTRLEN] = {0};
  const uint8_t* a = source ? src_ip : dst_ip;
  if (has(kIpv4)) inet_ntop(AF_INET, a, s, sizeof s);
  else if (has(kIpv6)) inet_ntop(AF_INET6, a, s, sizeof s);
  return s;
}

void PacketFields::add_to(openbox::EventEntry& en, double packet_timestamp) const {
  if (packet_timestamp > 0) en.packet_timestamp = packet_timestamp;
  if (!has(kEth)) return;
  en.eth_type = eth_type;
  if (!has(kIpv4 | kIpv6)) {
    en.eth_src = mac_text(eth_src);
    en.eth_dst = mac_text(eth_dst);
    return;
  }
  en.src_ip = ip_text(true);
  en.dst_ip = ip_text(false);
  en.ip_proto = ip_proto;
  if (has(kPorts)) {
    en.src_port = src_port;
    en.dst_port = dst_port;
  } else if (has(kIcmp)) {
    en.icmp_type = icmp_type();
    en.icmp_code = icmp_code();
  }
}

}  // namespace obi
