// NetworkHeaderFieldsRewriter and NetworkDirectionSwap.
#include <gtest/gtest.h>

#include "checks.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

namespace {

Bytes tcp_frame(const std::string& payload = "GET / HTTP/1.1\r\n") {
  return with_checksums(tcp4("10.0.0.1", "10.0.0.2", 40000, 80, payload));
}
Bytes udp_frame() { return with_checksums(udp4("172.16.0.9", "8.8.8.8", 5353, 53, "query!")); }

}  // namespace

TEST(NetworkHeaderFieldsRewriter, RewritesIpv4AndTcpWithValidChecksums) {
  ElementHarness h("NetworkHeaderFieldsRewriter", {{"ipv4_src", "192.0.2.7"},
                                                   {"ipv4_dst", "198.51.100.1"},
                                                   {"ipv4_dscp", 46},
                                                   {"ipv4_ecn", 1},
                                                   {"ipv4_ttl", 9},
                                                   {"tcp_src", 1111},
                                                   {"tcp_dst", 8080},
                                                   {"eth_dst", "aa:bb:cc:dd:ee:ff"},
                                                   {"eth_src", "02-00-00-00-00-99"}});
  Bytes in = tcp_frame();
  ASSERT_TRUE(l4_checksum_ok(in));
  Result r = h.push({in});
  ASSERT_EQ(r.out[0].size(), 1u);
  const Bytes& o = r.out[0][0];
  Offsets off = offsets(o);
  EXPECT_EQ(be32(o, off.l3 + 12), 0xc0000207u);
  EXPECT_EQ(be32(o, off.l3 + 16), 0xc6336401u);
  EXPECT_EQ(o[off.l3 + 1], (46 << 2) | 1);
  EXPECT_EQ(o[off.l3 + 8], 9);
  EXPECT_EQ(be16(o, off.l4), 1111);
  EXPECT_EQ(be16(o, off.l4 + 2), 8080);
  EXPECT_EQ(o[0], 0xaa);
  EXPECT_EQ(o[5], 0xff);
  EXPECT_EQ(o[11], 0x99);
  EXPECT_TRUE(ipv4_checksum_ok(o));
  EXPECT_TRUE(l4_checksum_ok(o));
  EXPECT_TRUE(std::equal(in.begin() + off.l4 + 20, in.end(), o.begin() + off.l4 + 20));  // payload
}

TEST(NetworkHeaderFieldsRewriter, UdpPortsAndZeroChecksum) {
  ElementHarness h("NetworkHeaderFieldsRewriter", {{"udp_dst", 5300}, {"ipv4_src", "1.2.3.4"}, {"tcp_dst", 1}});
  Bytes in = udp_frame();
  Bytes nosum = udp4("172.16.0.9", "8.8.8.8", 5353, 53, "query!");  // checksum 0: none
  Result r = h.push({in, nosum});
  ASSERT_EQ(r.out[0].size(), 2u);
  const Bytes& o = r.out[0][0];
  Offsets off = offsets(o);
  EXPECT_EQ(be16(o, off.l4 + 2), 5300);
  EXPECT_EQ(be16(o, off.l4), 5353);
  EXPECT_TRUE(l4_checksum_ok(o));
  EXPECT_TRUE(ipv4_checksum_ok(o));
  EXPECT_EQ(be16(r.out[0][1], off.l4 + 6), 0);  // stays "no checksum"
  EXPECT_EQ(be16(r.out[0][1], off.l4 + 2), 5300);
}

TEST(NetworkHeaderFieldsRewriter, ManyValuesAgreeWithFullRecompute) {
  ElementHarness h("NetworkHeaderFieldsRewriter", json::object());
  uint32_t seed = 12345;
  auto rnd = [&] {
    seed = seed * 1103515245 + 12345;
    return seed >> 8;
  };
  for (int i = 0; i < 300; ++i) {
    std::string a =
        std::to_string(rnd() % 256) + "." + std::to_string(rnd() % 256) + ".0." + std::to_string(rnd() % 256);
    h.write("ipv4_dst", a);
    h.write("tcp_src", rnd() % 65536);
    h.write("ipv4_ttl", rnd() % 256);
    Bytes in =
        with_checksums(tcp4("10.9.8.7", "1.1.1.1", uint16_t(rnd()), uint16_t(rnd()), std::string(rnd() % 40, 'x')));
    Bytes o = h.push({in}).out[0].at(0);
    ASSERT_TRUE(ipv4_checksum_ok(o)) << i;
    ASSERT_TRUE(l4_checksum_ok(o)) << i;
  }
}

TEST(NetworkHeaderFieldsRewriter, HandlesAndAbsentLayers) {
  ElementHarness h("NetworkHeaderFieldsRewriter", {{"ipv4_dst", "10.10.10.10"}, {"eth_type", "0x86dd"}});
  EXPECT_EQ(h.read("ipv4_dst"), "10.10.10.10");
  EXPECT_EQ(h.read("eth_type"), 0x86dd);
  EXPECT_TRUE(h.read("tcp_src").is_null());
  h.write("eth_type", nullptr);
  EXPECT_TRUE(h.read("eth_type").is_null());
  h.write("eth_src", "02:00:00:00:00:0a");
  EXPECT_EQ(h.read("eth_src"), "02:00:00:00:00:0a");
  h.write("tcp_src", 99);
  EXPECT_EQ(h.read("tcp_src"), 99);
  expect_illegal(h, "ipv4_dst", "10.0.0.256");
  expect_illegal(h, "eth_dst", "zz:00:00:00:00:00");
  expect_illegal(h, "ipv4_dscp", 64);
  expect_illegal(h, "udp_dst", -1);
  EXPECT_THROW(h.read("bogus"), openbox::ProtocolError);

  // IPv6/UDP, ARP, a truncated frame and a 6-byte runt: only what exists is touched.
  Frame v6;
  v6.ipv6 = true;
  v6.src_ip = "2001:db8::1";
  v6.dst_ip = "2001:db8::2";
  v6.proto = 6;
  Bytes v6b = with_checksums(build(v6));
  Frame arp;
  arp.eth_type = 0x0806;
  arp.proto = 255;
  Bytes trunc = tcp_frame();
  trunc.resize(40);  // IPv4 header cut in the middle
  Bytes runt(6, 1);
  Result r = h.push({v6b, build(arp), trunc, runt});
  ASSERT_EQ(r.out[0].size(), 4u);
  EXPECT_EQ(be16(r.out[0][0], offsets(v6b).l4), 99);  // tcp_src applies to IPv6 too
  EXPECT_TRUE(l4_checksum_ok(r.out[0][0]));
  EXPECT_EQ(r.out[0][0][11], 0x0a);
  EXPECT_EQ(r.out[0][1][11], 0x0a);
  EXPECT_EQ(be16(r.out[0][1], 12), 0x0806);
  EXPECT_EQ(r.out[0][2].size(), 40u);
  EXPECT_EQ(r.out[0][3], runt);
}

TEST(NetworkHeaderFieldsRewriter, EthTypeAfterVlanAndProto) {
  ElementHarness h("NetworkHeaderFieldsRewriter", {{"eth_type", 0x88b5}, {"ipv4_proto", 253}});
  Frame f;
  f.vlans = {5};
  Bytes in = build(f);
  Bytes o = h.push({in}).out[0].at(0);
  EXPECT_EQ(be16(o, 12), 0x8100);
  EXPECT_EQ(be16(o, 16), 0x88b5);
  EXPECT_EQ(o[18 + 9], 253);
  // the IPv4 header is still where it was: its checksum must cover the new protocol
  Bytes as_ip = o;
  as_ip[16] = 0x08;
  as_ip[17] = 0x00;
  EXPECT_TRUE(ipv4_checksum_ok(as_ip));
}

TEST(NetworkHeaderFieldsRewriter, BadConfigs) {
  expect_bad_block("NetworkHeaderFieldsRewriter", {{"eth_dst", "01:02:03"}}, "eth_dst");
  expect_bad_block("NetworkHeaderFieldsRewriter", {{"ipv4_src", "1.2.3"}}, "ipv4_src");
  expect_bad_block("NetworkHeaderFieldsRewriter", {{"ipv4_ecn", 4}}, "ipv4_ecn");
  expect_bad_block("NetworkHeaderFieldsRewriter", {{"tcp_dst", 70000}}, "tcp_dst");
  expect_bad_block("NetworkHeaderFieldsRewriter", {{"ip_dst", "1.1.1.1"}}, "ip_dst");
}

TEST(NetworkDirectionSwap, SwapsRequestedLayersChecksumsStayValid) {
  ElementHarness h("NetworkDirectionSwap", {{"ethernet", true}, {"ipv4", true}, {"tcp", true}});
  Bytes in = tcp_frame();
  Bytes o = h.push({in}).out[0].at(0);
  Offsets off = offsets(in);
  EXPECT_TRUE(std::equal(in.begin(), in.begin() + 6, o.begin() + 6));
  EXPECT_TRUE(std::equal(in.begin() + 6, in.begin() + 12, o.begin()));
  EXPECT_EQ(be32(o, off.l3 + 12), be32(in, off.l3 + 16));
  EXPECT_EQ(be32(o, off.l3 + 16), be32(in, off.l3 + 12));
  EXPECT_EQ(be16(o, off.l4), 80);
  EXPECT_EQ(be16(o, off.l4 + 2), 40000);
  EXPECT_TRUE(ipv4_checksum_ok(o));
  EXPECT_TRUE(l4_checksum_ok(o));
  // udp is off: a UDP packet keeps its ports but has its addresses swapped
  Bytes u = udp_frame();
  Bytes uo = h.push({u}).out[0].at(0);
  EXPECT_EQ(be16(uo, offsets(u).l4), 5353);
  EXPECT_EQ(be32(uo, offsets(u).l3 + 12), be32(u, offsets(u).l3 + 16));
}

TEST(NetworkDirectionSwap, Ipv6UdpAndHandles) {
  ElementHarness h("NetworkDirectionSwap", {{"ipv6", true}});
  EXPECT_EQ(h.read("ipv6"), true);
  EXPECT_EQ(h.read("ethernet"), false);
  h.write("udp", true);
  EXPECT_EQ(h.read("udp"), true);
  Frame f;
  f.ipv6 = true;
  f.src_ip = "2001:db8::1";
  f.dst_ip = "fe80::2";
  f.proto = 17;
  f.payload = "abc";
  Bytes in = with_checksums(build(f));
  Bytes o = h.push({in}).out[0].at(0);
  Offsets off = offsets(in);
  EXPECT_TRUE(std::equal(in.begin() + off.l3 + 8, in.begin() + off.l3 + 24, o.begin() + off.l3 + 24));
  EXPECT_EQ(be16(o, off.l4), 80);
  EXPECT_TRUE(l4_checksum_ok(o));
  EXPECT_TRUE(std::equal(in.begin(), in.begin() + 12, o.begin()));  // ethernet off
  // a runt and a truncated IPv6 frame pass untouched
  Bytes runt(8, 3), cut(in.begin(), in.begin() + 30);
  Result r = h.push({runt, cut});
  EXPECT_EQ(r.out[0][0], runt);
  EXPECT_EQ(r.out[0][1], cut);
  h.write("ipv6", false);
  EXPECT_EQ(h.read("ipv6"), false);
  expect_illegal(h, "tcp", "yes");
  expect_bad_block("NetworkDirectionSwap", {{"ipv4", 1}}, "ipv4");
  expect_bad_block("NetworkDirectionSwap", {{"mpls", true}}, "mpls");
}
