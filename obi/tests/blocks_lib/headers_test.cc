// Typed header views (blocks/lib/headers.hh) over frames parsed by the engine: IPv4 with
// options, IPv6 with extension headers, VLAN tags, ICMP, and truncated frames (empty
// views, never a read past the frame).
#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>

#include "engine/pool.hh"
#include "engine/testing.hh"
#include "lib/bytes.hh"
#include "lib/headers.hh"

using namespace obi;
using obi::testing::Bytes;
using obi::testing::Frame;

namespace {

class HeaderViews : public ::testing::Test {
 protected:
  Packet& packet(const Bytes& b) { return *obi::testing::make_packet(pool_, b); }
  PacketPool pool_{64};
};

// A TCP/IPv4 frame whose IPv4 header carries 8 bytes of options (IHL 7).
Bytes ipv4_with_options() {
  Frame f;
  f.proto = kIpProtoTcp;
  f.src_port = 4321;
  f.dst_port = 443;
  f.tcp_flags = 0x12;  // SYN+ACK
  f.payload = "hello";
  Bytes b = obi::testing::build(f);
  const uint8_t options[8] = {0x94, 0x04, 0, 0, 0x01, 0x01, 0x01, 0x00};  // router alert, NOPs, end
  b.insert(b.begin() + 14 + 20, options, options + 8);
  b[14] = 0x47;
  store_be16(&b[14 + 2], static_cast<uint16_t>(load_be16(&b[14 + 2]) + 8));
  return b;
}

// A UDP/IPv6 frame with a hop-by-hop options header (8 bytes) and a destination
// options header (16 bytes) before the UDP header.
Bytes ipv6_with_extensions() {
  Frame f;
  f.ipv6 = true;
  f.src_ip = "2001:db8::1";
  f.dst_ip = "2001:db8::2";
  f.proto = kIpProtoUdp;
  f.src_port = 5353;
  f.dst_port = 53;
  f.payload = "q";
  Bytes b = obi::testing::build(f);
  const size_t l3 = 14, ext = l3 + 40;
  uint8_t hop[8] = {60, 0, 1, 4, 0, 0, 0, 0};                                     // next: destination options
  uint8_t dst[16] = {kIpProtoUdp, 1, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // next: UDP
  b.insert(b.begin() + ext, dst, dst + 16);
  b.insert(b.begin() + ext, hop, hop + 8);
  b[l3 + 6] = 0;  // next header of the fixed header: hop-by-hop
  store_be16(&b[l3 + 4], static_cast<uint16_t>(load_be16(&b[l3 + 4]) + 24));
  return b;
}

}  // namespace

TEST_F(HeaderViews, Ipv4WithOptionsAndTcp) {
  Packet& p = packet(ipv4_with_options());
  const Headers& h = p.headers();
  auto ip = hdr::ipv4(p, h);
  ASSERT_TRUE(ip);
  EXPECT_EQ(ip.header_len(), 28u);
  EXPECT_EQ(ip.options()[0], 0x94);
  EXPECT_EQ(ip.src(), 0x0a000001u);
  EXPECT_EQ(ip.dst(), 0x0a000002u);
  EXPECT_EQ(ip.ttl(), 64);
  EXPECT_EQ(ip.proto(), kIpProtoTcp);
  EXPECT_EQ(ip.total_len(), 28 + 20 + 5);
  EXPECT_FALSE(ip.more_fragments());
  EXPECT_FALSE(hdr::ipv6(p, h));
  auto t = hdr::tcp(p, h);
  ASSERT_TRUE(t);
  EXPECT_EQ(t.data(), p.data + 14 + 28);  // past the options
  EXPECT_EQ(t.src_port(), 4321);
  EXPECT_EQ(t.dst_port(), 443);
  EXPECT_EQ(t.flags(), hdr::Tcp::kSyn | hdr::Tcp::kAckFlag);
  EXPECT_EQ(t.header_len(), 20u);
  EXPECT_FALSE(hdr::udp(p, h));
  EXPECT_FALSE(hdr::icmp(p, h));
  // setters write network byte order where the getters read
  ip.set_ttl(9);
  t.set_dst_port(8443);
  EXPECT_EQ(p.data[14 + hdr::Ipv4::kTtl], 9);
  EXPECT_EQ(load_be16(p.data + 14 + 28 + 2), 8443);
}

TEST_F(HeaderViews, Ipv6WithExtensionHeaders) {
  Packet& p = packet(ipv6_with_extensions());
  const Headers& h = p.headers();
  auto ip6 = hdr::ipv6(p, h);
  ASSERT_TRUE(ip6);
  EXPECT_FALSE(hdr::ipv4(p, h));
  EXPECT_EQ(ip6.next_header(), 0);  // the fixed header's: hop-by-hop
  EXPECT_EQ(ip6.hop_limit(), 64);
  EXPECT_EQ(ip6.src()[0], 0x20);
  EXPECT_EQ(ip6.dst()[15], 2);
  auto u = hdr::udp(p, h);
  ASSERT_TRUE(u);
  EXPECT_EQ(u.data(), p.data + 14 + 40 + 8 + 16);
  EXPECT_EQ(u.src_port(), 5353);
  EXPECT_EQ(u.dst_port(), 53);
  EXPECT_EQ(u.length(), 8 + 1);
}

TEST_F(HeaderViews, VlanTagsAndInnerIpv4) {
  Frame f;
  f.vlans = {0x6064, 0x0007};  // PCP 3, VID 100; then VID 7
  f.proto = kIpProtoUdp;
  Packet& p = packet(obi::testing::build(f));
  const Headers& h = p.headers();
  auto eth = hdr::ethernet(p);
  ASSERT_TRUE(eth);
  EXPECT_EQ(eth.type(), kEthVlan);
  EXPECT_EQ(eth.dst_mac(), 0x020000000002ull);
  auto outer = hdr::vlan(p, h, 0), inner = hdr::vlan(p, h, 1);
  ASSERT_TRUE(outer);
  ASSERT_TRUE(inner);
  EXPECT_FALSE(hdr::vlan(p, h, 2));
  EXPECT_EQ(outer.vid(), 100);
  EXPECT_EQ(outer.pcp(), 3);
  EXPECT_EQ(outer.inner_type(), kEthVlan);
  EXPECT_EQ(inner.vid(), 7);
  EXPECT_EQ(inner.inner_type(), kEthIpv4);
  auto ip = hdr::ipv4(p, h);
  ASSERT_TRUE(ip);
  EXPECT_EQ(ip.data(), p.data + 14 + 8);
}

TEST_F(HeaderViews, Icmp) {
  Frame f;
  f.proto = kIpProtoIcmp;
  f.icmp_type = 3;
  f.icmp_code = 1;
  Packet& p = packet(obi::testing::build(f));
  auto i = hdr::icmp(p, p.headers());
  ASSERT_TRUE(i);
  EXPECT_EQ(i.type(), 3);
  EXPECT_EQ(i.code(), 1);
  EXPECT_FALSE(hdr::tcp(p, p.headers()));
}

TEST_F(HeaderViews, TruncatedFramesGiveEmptyViews) {
  Bytes full = ipv4_with_options();
  // cut inside the TCP header: IPv4 is there, TCP is not
  Packet& a = packet(Bytes(full.begin(), full.begin() + 14 + 28 + 10));
  EXPECT_TRUE(hdr::ipv4(a, a.headers()));
  EXPECT_FALSE(hdr::tcp(a, a.headers()));
  // cut inside the IPv4 fixed header
  Packet& b = packet(Bytes(full.begin(), full.begin() + 14 + 12));
  EXPECT_TRUE(hdr::ethernet(b));
  EXPECT_FALSE(hdr::ipv4(b, b.headers()));
  EXPECT_FALSE(hdr::tcp(b, b.headers()));
  // not even an Ethernet header
  Packet& c = packet(Bytes(full.begin(), full.begin() + 10));
  EXPECT_FALSE(hdr::ethernet(c));
  EXPECT_FALSE(hdr::ipv4(c, c.headers()));
  // IPv6 cut inside its extension headers
  Bytes v6 = ipv6_with_extensions();
  Packet& d = packet(Bytes(v6.begin(), v6.begin() + 14 + 40 + 12));
  EXPECT_TRUE(hdr::ipv6(d, d.headers()));
  EXPECT_FALSE(hdr::udp(d, d.headers()));
}

TEST_F(HeaderViews, ConstPacketGivesReadOnlyView) {
  const Packet& p = packet(ipv4_with_options());
  Headers h = const_cast<Packet&>(p).headers();
  auto ip = hdr::ipv4(p, h);
  static_assert(std::is_same_v<decltype(ip.data()), const uint8_t*>);
  EXPECT_EQ(ip.ttl(), 64);
}
