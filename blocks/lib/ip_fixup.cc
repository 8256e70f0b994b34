#include "lib/ip_fixup.hh"

#include "lib/checksum.hh"
#include "lib/headers.hh"

namespace obi::blocks {

uint32_t ip_packet_end(Packet& p, const Headers& h) {
  if (const hdr::Ipv4 ip = hdr::ipv4(p, h)) return h.l3 + ip.total_len();
  if (const hdr::Ipv6 ip6 = hdr::ipv6(p, h)) return h.l3 + hdr::Ipv6::kLen + ip6.payload_len();
  return p.len;
}

void fix_lengths_and_checksums(Packet& p, const Headers& h) {
  uint32_t pseudo = 0;  // the pseudo header's address words
  if (const hdr::Ipv4 ip = hdr::ipv4(p, h)) {
    const uint32_t ihl = ip.header_len();
    if (h.l3 + ihl > p.len) return;
    ip.set_total_len(static_cast<uint16_t>(p.len - h.l3));
    ip.set_checksum(0);
    ip.set_checksum(folded(sum_words(0, ip.data(), ihl)));
    pseudo = sum_words(0, ip.src_bytes(), 8);
  } else if (const hdr::Ipv6 ip6 = hdr::ipv6(p, h)) {
    ip6.set_payload_len(static_cast<uint16_t>(p.len - h.l3 - hdr::Ipv6::kLen));
    pseudo = sum_words(0, ip6.src(), 32);
  } else {
    return;
  }
  if (h.l4 == kNoOffset || h.fragment || h.l4 > p.len) return;
  const uint32_t l4_len = p.len - h.l4;
  if (const hdr::Tcp t = hdr::tcp(p, h)) {
    t.set_checksum(0);
    t.set_checksum(folded(sum_words(pseudo + kIpProtoTcp + l4_len, t.data(), l4_len)));
  } else if (const hdr::Udp u = hdr::udp(p, h)) {
    u.set_length(static_cast<uint16_t>(l4_len));
    const bool had = u.checksum() != 0 || h.eth_type != kEthIpv4;  // IPv4 UDP may go without
    u.set_checksum(0);
    if (had) {
      const uint16_t c = folded(sum_words(pseudo + kIpProtoUdp + l4_len, u.data(), l4_len));
      u.set_checksum(c == 0 ? 0xffff : c);
    }
  }
}

}  // namespace obi::blocks
