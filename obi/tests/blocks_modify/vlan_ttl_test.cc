// VlanEncapsulate, VlanDecapsulate and DecIpTtl on crafted frames.
#include <gtest/gtest.h>

#include <cmath>

#include "checks.hh"
#include "lib/output_stats.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

TEST(VlanEncapsulate, InsertsTagAfterMacsAndKeepsTheRest) {
  ElementHarness h("VlanEncapsulate", {{"vlan_vid", 100}, {"vlan_pcp", 5}, {"vlan_dei", 1}});
  Bytes in = udp4("10.0.0.1", "10.0.0.2", 1000, 53, "hello");
  Result r = h.push({in});
  ASSERT_EQ(r.out[0].size(), 1u);
  const Bytes& o = r.out[0][0];
  ASSERT_EQ(o.size(), in.size() + 4);
  EXPECT_TRUE(std::equal(in.begin(), in.begin() + 12, o.begin()));
  EXPECT_EQ(be16(o, 12), 0x8100);
  EXPECT_EQ(be16(o, 14), (5 << 13) | (1 << 12) | 100);
  EXPECT_TRUE(std::equal(in.begin() + 12, in.end(), o.begin() + 16));
  EXPECT_EQ(h.read("vlan_tci").get<int>(), (5 << 13) | (1 << 12) | 100);
  EXPECT_EQ(h.read("ethertype").get<int>(), 0x8100);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(VlanEncapsulate, HandlesChangeTheTag) {
  ElementHarness h("VlanEncapsulate", {{"vlan_vid", 7}, {"ethertype", "0x88a8"}});
  EXPECT_EQ(h.read("vlan_vid").get<int>(), 7);
  EXPECT_EQ(h.read("vlan_pcp").get<int>(), 0);
  EXPECT_EQ(h.read("ethertype").get<int>(), 0x88a8);
  h.write("vlan_vid", 4000);
  h.write("vlan_pcp", 2);
  Bytes o = h.push({udp4("1.1.1.1", "2.2.2.2", 1, 2)}).out[0].at(0);
  EXPECT_EQ(be16(o, 12), 0x88a8);
  EXPECT_EQ(be16(o, 14), (2 << 13) | 4000);
  h.write("vlan_tci", 0x2005);
  h.write("ethertype", 0x9100);
  o = h.push({udp4("1.1.1.1", "2.2.2.2", 1, 2)}).out[0].at(0);
  EXPECT_EQ(be16(o, 12), 0x9100);
  EXPECT_EQ(be16(o, 14), 0x2005);
  EXPECT_EQ(h.read("vlan_vid").get<int>(), 5);
  EXPECT_EQ(h.read("vlan_pcp").get<int>(), 1);
  expect_illegal(h, "vlan_vid", 4096);
  expect_illegal(h, "vlan_pcp", 8);
  expect_illegal(h, "vlan_tci", "x");
  expect_illegal(h, "nope", 1);
}

TEST(VlanEncapsulate, StackedTagsParseAndShortFramesDrop) {
  ElementHarness h("VlanEncapsulate", {{"vlan_vid", 10}});
  Frame f;
  f.vlans = {20};
  f.proto = 17;
  Result r = h.push({build(f), Bytes(10, 0xaa)});
  ASSERT_EQ(r.out[0].size(), 1u);
  EXPECT_EQ(r.dropped, 1u);
  Packet p;
  Bytes o = r.out[0][0];
  EXPECT_EQ(be16(o, 14), 10);  // new outer tag
  EXPECT_EQ(be16(o, 18), 20);  // old tag follows
  EXPECT_EQ(offsets(o).l3, 22u);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(VlanEncapsulate, BadConfigs) {
  expect_bad_block("VlanEncapsulate", json::object(), "vlan_vid");
  expect_bad_block("VlanEncapsulate", {{"vlan_vid", 4096}}, "vlan_vid");
  expect_bad_block("VlanEncapsulate", {{"vlan_vid", "abc"}}, "vlan_vid");
  expect_bad_block("VlanEncapsulate", {{"vlan_vid", 1}, {"vlan_pcp", 8}}, "vlan_pcp");
  expect_bad_block("VlanEncapsulate", {{"vlan_vid", 1}, {"vlan_dei", 2}}, "vlan_dei");
  expect_bad_block("VlanEncapsulate", {{"vlan_vid", 1}, {"ethertype", 0x10000}}, "ethertype");
  expect_bad_block("VlanEncapsulate", {{"vlan_vid", 1}, {"vlan_id", 2}}, "vlan_id");
  expect_bad_block("VlanEncapsulate", json::array(), "config");
}

TEST(VlanDecapsulate, StripsOneTagAndPassesOthers) {
  ElementHarness h("VlanDecapsulate", json::object());
  Frame tagged;
  tagged.vlans = {100, 200};
  Bytes plain = udp4("1.1.1.1", "2.2.2.2", 5, 6);
  Bytes qinq = build(tagged);
  Bytes s_tag = plain;  // a single 802.1ad tag
  s_tag.insert(s_tag.begin() + 12, {0x88, 0xa8, 0x00, 0x33});
  Bytes tiny(16, 0);
  tiny[12] = 0x81;
  tiny[13] = 0x00;
  Result r = h.push({qinq, plain, s_tag, tiny});
  ASSERT_EQ(r.out[0].size(), 4u);
  EXPECT_EQ(r.out[0][0].size(), qinq.size() - 4);
  EXPECT_EQ(be16(r.out[0][0], 12), 0x8100);
  EXPECT_EQ(be16(r.out[0][0], 14), 200);
  EXPECT_TRUE(std::equal(qinq.begin(), qinq.begin() + 12, r.out[0][0].begin()));
  EXPECT_EQ(r.out[0][1], plain);
  EXPECT_EQ(r.out[0][2], plain);
  EXPECT_EQ(r.out[0][3], tiny);  // too short to hold a tag: unchanged
  expect_bad_block("VlanDecapsulate", {{"x", 1}}, "x");
}

TEST(VlanRoundTrip, EncapThenDecapRestoresFrame) {
  auto enc = make_element("VlanEncapsulate", {{"vlan_vid", 42}});
  ElementHarness e(std::move(enc));
  ElementHarness d("VlanDecapsulate", json::object());
  Bytes in = tcp4("10.1.1.1", "10.2.2.2", 4000, 443, "data");
  Bytes tagged = e.push({in}).out[0].at(0);
  EXPECT_EQ(d.push({tagged}).out[0].at(0), in);
}

TEST(DecIpTtl, DecrementsAndPatchesChecksum) {
  ElementHarness h("DecIpTtl", json::object());
  std::vector<Bytes> in;
  for (int ttl : {64, 2, 255, 1, 0}) {
    Frame f;
    f.ttl = uint8_t(ttl);
    f.proto = 6;
    f.src_ip = "192.168.1." + std::to_string(ttl % 200);
    in.push_back(build(f));
  }
  Result r = h.push(in);
  ASSERT_EQ(r.out[0].size(), 3u);
  ASSERT_EQ(r.out[1].size(), 2u);
  int expect_ttl[] = {63, 1, 254};
  for (int i = 0; i < 3; ++i) {
    const Bytes& o = r.out[0][i];
    EXPECT_EQ(o[offsets(o).l3 + 8], expect_ttl[i]);
    EXPECT_TRUE(ipv4_checksum_ok(o)) << i;
  }
  EXPECT_EQ(r.out[1][0], in[3]);  // expired: unchanged
  EXPECT_EQ(r.out[1][1], in[4]);
  EXPECT_EQ(h.read("count"), json::array({3, 2}));
  uint64_t b0 = in[0].size() + in[1].size() + in[2].size(), b1 = in[3].size() + in[4].size();
  EXPECT_EQ(h.read("byte_count"), json::array({b0, b1}));
  EXPECT_EQ(h.read("active"), true);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("count"), json::array({0, 0}));
  EXPECT_EQ(h.read("rate").size(), 2u);
  EXPECT_EQ(h.read("byte_rate").size(), 2u);
}

TEST(DecIpTtl, ChecksumCornerCasesMatchFullRecompute) {
  // Every TTL and several header contents: the incremental update must agree with a
  // checksum computed from scratch, including results that fold through 0xffff.
  ElementHarness h("DecIpTtl", json::object());
  for (int ttl = 2; ttl < 256; ++ttl) {
    for (const char* src : {"0.0.0.0", "255.255.255.255", "10.0.0.1", "254.255.0.1"}) {
      Frame f;
      f.ttl = uint8_t(ttl);
      f.src_ip = src;
      f.dst_ip = "255.255.255.254";
      f.proto = 17;
      Result r = h.push({build(f)});
      ASSERT_EQ(r.out[0].size(), 1u);
      ASSERT_TRUE(ipv4_checksum_ok(r.out[0][0])) << "ttl " << ttl << " src " << src;
    }
  }
}

TEST(DecIpTtl, Ipv6HopLimitAndNonIp) {
  ElementHarness h("DecIpTtl", json::object());
  Frame v6;
  v6.ipv6 = true;
  v6.src_ip = "2001:db8::1";
  v6.dst_ip = "2001:db8::2";
  v6.ttl = 10;
  Frame v6x = v6;
  v6x.ttl = 1;
  Frame arp;
  arp.eth_type = 0x0806;
  arp.proto = 255;
  Bytes arpb = build(arp);
  Bytes trunc = udp4("1.1.1.1", "2.2.2.2", 1, 2);
  trunc.resize(20);
  Result r = h.push({build(v6), build(v6x), arpb, trunc});
  ASSERT_EQ(r.out[0].size(), 3u);
  ASSERT_EQ(r.out[1].size(), 1u);
  EXPECT_EQ(r.out[0][0][offsets(r.out[0][0]).l3 + 7], 9);
  EXPECT_EQ(r.out[0][1], arpb);
  EXPECT_EQ(r.out[0][2], trunc);
}

TEST(DecIpTtl, InactivePassesEverything) {
  ElementHarness h("DecIpTtl", {{"active", false}});
  Frame f;
  f.ttl = 1;
  Frame g;
  g.ttl = 9;
  Result r = h.push({build(f), build(g)});
  ASSERT_EQ(r.out[0].size(), 2u);
  EXPECT_EQ(r.out[0][0], build(f));
  EXPECT_EQ(r.out[0][1], build(g));
  h.write("active", true);
  EXPECT_EQ(h.read("active"), true);
  r = h.push({build(f)});
  EXPECT_EQ(r.out[1].size(), 1u);
  expect_illegal(h, "active", 3);
  expect_bad_block("DecIpTtl", {{"active", "maybe"}}, "active");
}

TEST(DecIpTtl, RateFollowsTraffic) {
  ElementHarness h("DecIpTtl", json::object());
  Bytes f = udp4("1.1.1.1", "2.2.2.2", 1, 2);
  // 10 packets every 10 ms = 1000 packets/s for 3 s of worker clock, which is the steady
  // clock (as the engine's): a read decays the rate by the time since the last packet, so
  // a clock of the test's own would make the figure depend on the machine's uptime.
  const uint64_t start = obi::blocks::clock_now_ns() - 3'000'000'000ull;
  for (int t = 0; t <= 300; ++t) {
    h.set_now(start + uint64_t(t) * 10'000'000ull);
    h.push(std::vector<Bytes>(10, f));
  }
  const uint64_t last = start + 300ull * 10'000'000ull;
  double rate = h.read("rate")[0].get<double>();
  const double decay = std::exp(-static_cast<double>(obi::blocks::clock_now_ns() - last) * 1e-9);
  EXPECT_NEAR(rate, 1000.0 * decay, 50.0);
  EXPECT_NEAR(h.read("byte_rate")[0].get<double>(), rate * f.size(), 5.0 * f.size());
  EXPECT_EQ(h.read("rate")[1].get<double>(), 0.0);
}
