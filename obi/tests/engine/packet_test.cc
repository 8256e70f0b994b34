// Packet parser, pool and flow hash on crafted and truncated frames.
#include <gtest/gtest.h>

#include "engine/pool.hh"
#include "engine/testing.hh"

using namespace obi;
using namespace obi::testing;

namespace {

Headers parse(PacketPool& pool, const Bytes& b) {
  Packet* p = make_packet(pool, b);
  Headers h = p->headers();
  pool.free(p);
  return h;
}

TEST(PacketParser, Ipv4Tcp) {
  PacketPool pool(8);
  Headers h = parse(pool, tcp4("1.2.3.4", "5.6.7.8", 1000, 80, "GET /"));
  EXPECT_EQ(h.eth_type, 0x0800);
  EXPECT_EQ(h.l3, 14);
  EXPECT_EQ(h.l4, 34);
  EXPECT_EQ(h.payload, 54);
  EXPECT_EQ(h.ip_proto, 6);
  EXPECT_FALSE(h.fragment);
  EXPECT_EQ(h.vlan_count, 0);
}

TEST(PacketParser, TwoVlanTagsAndUdp) {
  PacketPool pool(8);
  Frame f;
  f.vlans = {0x2005, 0x0007};
  f.proto = 17;
  Headers h = parse(pool, build(f));
  EXPECT_EQ(h.vlan_count, 2);
  EXPECT_EQ(h.vlan_tci, 0x2005);
  EXPECT_EQ(h.eth_type, 0x0800);
  EXPECT_EQ(h.l3, 22);
  EXPECT_EQ(h.l4, 42);
  EXPECT_EQ(h.payload, 50);
}

TEST(PacketParser, QinQOuterTag) {
  PacketPool pool(8);
  Frame f;
  f.vlans = {0x0064};
  f.proto = 6;
  Bytes b = build(f);
  b[12] = 0x88;
  b[13] = 0xa8;  // 802.1ad outer TPID
  Headers h = parse(pool, b);
  EXPECT_EQ(h.vlan_count, 1);
  EXPECT_EQ(h.vlan_tci, 0x64);
  EXPECT_EQ(h.l4, 38);
}

TEST(PacketParser, Ipv4OptionsShiftL4) {
  PacketPool pool(8);
  Bytes b = udp4("1.1.1.1", "2.2.2.2", 7, 9, "xy");
  // insert 8 bytes of options (NOPs) after the 20-byte IPv4 header
  b.insert(b.begin() + 34, 8, 0x01);
  b[14] = 0x47;
  Headers h = parse(pool, b);
  EXPECT_EQ(h.l3, 14);
  EXPECT_EQ(h.l4, 42);
  EXPECT_EQ(h.payload, 50);
}

TEST(PacketParser, Ipv4NonFirstFragmentHasNoL4) {
  PacketPool pool(8);
  Bytes b = udp4("1.1.1.1", "2.2.2.2", 7, 9, "payload");
  b[20] = 0x00;
  b[21] = 0x10;  // fragment offset 16 * 8
  Headers h = parse(pool, b);
  EXPECT_TRUE(h.fragment);
  EXPECT_EQ(h.l4, kNoOffset);
  EXPECT_EQ(h.payload, 34);
  EXPECT_EQ(h.ip_proto, 17);
}

TEST(PacketParser, Ipv6WithExtensionHeaders) {
  PacketPool pool(8);
  Frame f;
  f.ipv6 = true;
  f.src_ip = "2001:db8::1";
  f.dst_ip = "2001:db8::2";
  f.proto = 6;
  Bytes b = build(f);
  // Insert a hop-by-hop header (8 bytes) whose next header is TCP.
  b[20] = 0;  // IPv6 next header: hop-by-hop
  Bytes hbh = {6, 0, 1, 4, 0, 0, 0, 0};
  b.insert(b.begin() + 54, hbh.begin(), hbh.end());
  Headers h = parse(pool, b);
  EXPECT_EQ(h.eth_type, 0x86dd);
  EXPECT_EQ(h.l3, 14);
  EXPECT_EQ(h.ip_proto, 6);
  EXPECT_EQ(h.l4, 62);
  EXPECT_EQ(h.payload, 82);
}

TEST(PacketParser, Ipv6FragmentHeader) {
  PacketPool pool(8);
  Frame f;
  f.ipv6 = true;
  f.src_ip = "::1";
  f.dst_ip = "::2";
  f.proto = 17;
  Bytes b = build(f);
  b[20] = 44;
  Bytes frag = {17, 0, 0x00, 0x08, 0, 0, 0, 1};  // offset 1 (non-first)
  b.insert(b.begin() + 54, frag.begin(), frag.end());
  Headers h = parse(pool, b);
  EXPECT_TRUE(h.fragment);
  EXPECT_EQ(h.ip_proto, 17);
  EXPECT_EQ(h.l4, kNoOffset);
}

TEST(PacketParser, Icmp6AndSctpAndArp) {
  PacketPool pool(8);
  Frame f6;
  f6.ipv6 = true;
  f6.src_ip = "::1";
  f6.dst_ip = "::2";
  f6.proto = 58;
  Headers h = parse(pool, build(f6));
  EXPECT_EQ(h.ip_proto, 58);
  EXPECT_EQ(h.l4, 54);
  Frame fs;
  fs.proto = 132;
  h = parse(pool, build(fs));
  EXPECT_EQ(h.l4, 34);
  EXPECT_EQ(h.payload, 46);
  Frame fa;
  fa.eth_type = 0x0806;
  fa.proto = 0;
  Bytes arp = build(fa);
  // ARP over Ethernet/IPv4: hlen 6, plen 4
  arp.resize(14);
  Bytes body = {0, 1, 8, 0, 6, 4, 0, 1};
  body.resize(28, 0);
  arp.insert(arp.end(), body.begin(), body.end());
  h = parse(pool, arp);
  EXPECT_EQ(h.eth_type, 0x0806);
  EXPECT_EQ(h.l3, 14);
  EXPECT_EQ(h.payload, 42);
  EXPECT_EQ(h.l4, kNoOffset);
}

// Every prefix of a valid frame parses without reading past len (ASan would catch it;
// the assertions check that no recorded offset lies beyond the frame).
TEST(PacketParser, TruncatedPrefixesStayInBounds) {
  PacketPool pool(4);
  std::vector<Bytes> frames = {tcp4("1.2.3.4", "5.6.7.8", 1, 2, "hello world"), udp4("1.2.3.4", "5.6.7.8", 1, 2, "x")};
  Frame f6;
  f6.ipv6 = true;
  f6.src_ip = "::1";
  f6.dst_ip = "::2";
  f6.proto = 6;
  f6.vlans = {5, 6};
  frames.push_back(build(f6));
  for (const Bytes& full : frames) {
    for (size_t n = 0; n <= full.size(); ++n) {
      Packet* p = pool.alloc();
      ASSERT_NE(p, nullptr);
      std::memcpy(p->data, full.data(), n);
      p->len = static_cast<uint32_t>(n);
      const Headers& h = p->headers();
      if (h.l3 != kNoOffset) {
        EXPECT_LE(h.l3 + 20u, n + 0u + (h.eth_type == 0x0806 ? 12u : 0u));
      }
      if (h.l4 != kNoOffset) {
        EXPECT_LE(h.l4 + 8u, n);
      }
      if (h.payload != kNoOffset) {
        EXPECT_LE(h.payload, n);
      }
      if (n < 14) {
        EXPECT_EQ(h.l3, kNoOffset);
        EXPECT_EQ(h.eth_type, 0);
      }
      (void)flow_hash(*p);
      pool.free(p);
    }
  }
}

TEST(PacketParser, InvalidateReparses) {
  PacketPool pool(4);
  Packet* p = make_packet(pool, udp4("1.1.1.1", "2.2.2.2", 1, 2));
  EXPECT_EQ(p->headers().l3, 14);
  p->data[12] = 0x86;
  p->data[13] = 0xdd;                        // now claims IPv6, but the version nibble is 4
  EXPECT_EQ(p->headers().eth_type, 0x0800);  // cached until invalidated
  p->invalidate_headers();
  EXPECT_EQ(p->headers().eth_type, 0x86dd);
  EXPECT_EQ(p->headers().l3, kNoOffset);
  ASSERT_NE(p->push_front(4), nullptr);
  EXPECT_FALSE(p->parsed);
  EXPECT_EQ(p->len, 64u);
  pool.free(p);
}

TEST(PacketPool, ExhaustsAndRecycles) {
  PacketPool pool(3);
  Packet* a = pool.alloc();
  Packet* b = pool.alloc();
  Packet* c = pool.alloc();
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(pool.alloc(), nullptr);
  EXPECT_EQ(pool.available(), 0u);
  EXPECT_EQ(a->data - a->buf, static_cast<long>(kHeadroom));
  EXPECT_NE(a->buf, b->buf);
  pool.free(b);
  Packet* d = pool.alloc();
  EXPECT_EQ(d, b);
  EXPECT_EQ(d->len, 0u);
  pool.free(a);
  pool.free(c);
  pool.free(d);
  EXPECT_EQ(pool.available(), 3u);
}

TEST(FlowHash, SymmetricAndSpread) {
  PacketPool pool(4);
  Packet* a = make_packet(pool, tcp4("10.0.0.1", "10.0.0.2", 1000, 80));
  Packet* b = make_packet(pool, tcp4("10.0.0.2", "10.0.0.1", 80, 1000));
  Packet* c = make_packet(pool, tcp4("10.0.0.1", "10.0.0.2", 1001, 80));
  EXPECT_EQ(flow_hash(*a), flow_hash(*b));
  EXPECT_NE(flow_hash(*a), flow_hash(*c));
  pool.free(a);
  pool.free(b);
  pool.free(c);
}

}  // namespace
