// Ipv4AddressTranslator: input specs, mappings both ways, port allocation, timeouts,
// capacity, checksums.
#include <gtest/gtest.h>

#include <set>

#include "checks.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

namespace {

constexpr uint64_t kSec = 1'000'000'000ull;

Bytes tcp(const std::string& s, const std::string& d, uint16_t sp, uint16_t dp, std::string payload = "x",
          uint8_t flags = 0x18) {
  return with_checksums(tcp4(s, d, sp, dp, std::move(payload), flags));
}
Bytes udp(const std::string& s, const std::string& d, uint16_t sp, uint16_t dp) {
  return with_checksums(udp4(s, d, sp, dp, "dns?"));
}

struct Tuple {
  uint32_t sa, da;
  uint16_t sp, dp;
};
Tuple tuple(const Bytes& b) {
  Offsets o = offsets(b);
  return {be32(b, o.l3 + 12), be32(b, o.l3 + 16), be16(b, o.l4), be16(b, o.l4 + 2)};
}
uint32_t ip(const char* s) {
  uint32_t a, b, c, d;
  std::sscanf(s, "%u.%u.%u.%u", &a, &b, &c, &d);
  return a << 24 | b << 16 | c << 8 | d;
}

void expect_valid(const Bytes& b) {
  EXPECT_TRUE(ipv4_checksum_ok(b));
  EXPECT_TRUE(l4_checksum_ok(b));
}

}  // namespace

TEST(Ipv4AddressTranslator, SourceNatBothDirections) {
  ElementHarness h("Ipv4AddressTranslator", {{"input_spec", {"pattern 192.0.2.1 1024-65535 - - 0 1", "drop"}}}, "nat");
  EXPECT_EQ(h.element().input_count(), 2);
  EXPECT_EQ(h.element().output_count(), 2);
  Result r = h.push({tcp("10.0.0.1", "8.8.8.8", 40000, 80)}, 0);
  ASSERT_EQ(r.out[0].size(), 1u);
  Tuple t = tuple(r.out[0][0]);
  EXPECT_EQ(t.sa, ip("192.0.2.1"));
  EXPECT_EQ(t.sp, 40000);  // the packet's own port is preferred
  EXPECT_EQ(t.da, ip("8.8.8.8"));
  EXPECT_EQ(t.dp, 80);
  expect_valid(r.out[0][0]);

  // the reply comes back on input 1 and is translated back to the inside host
  r = h.push({tcp("8.8.8.8", "192.0.2.1", 80, 40000, "reply")}, 1);
  ASSERT_EQ(r.out[1].size(), 1u);
  t = tuple(r.out[1][0]);
  EXPECT_EQ(t.sa, ip("8.8.8.8"));
  EXPECT_EQ(t.da, ip("10.0.0.1"));
  EXPECT_EQ(t.dp, 40000);
  expect_valid(r.out[1][0]);

  // more packets of the flow follow the mapping; unsolicited traffic on input 1 is dropped
  r = h.push({tcp("10.0.0.1", "8.8.8.8", 40000, 80, "more")}, 0);
  ASSERT_EQ(r.out[0].size(), 1u);
  EXPECT_EQ(tuple(r.out[0][0]).sa, ip("192.0.2.1"));
  r = h.push({tcp("9.9.9.9", "192.0.2.1", 80, 41000)}, 1);
  EXPECT_EQ(r.total(), 0u);
  EXPECT_EQ(r.dropped, 1u);
  EXPECT_EQ(h.read("mappings_count"), 1);
  EXPECT_EQ(h.read("length"), 1);
  EXPECT_EQ(h.read("mapping_failures"), 0);
  std::string tcpmap = h.read("tcp_mappings").get<std::string>();
  EXPECT_NE(tcpmap.find("(10.0.0.1, 40000, 8.8.8.8, 80) => (192.0.2.1, 40000, 8.8.8.8, 80) [*0 1]"), std::string::npos)
      << tcpmap;
  EXPECT_NE(tcpmap.find("(8.8.8.8, 80, 192.0.2.1, 40000) => (8.8.8.8, 80, 10.0.0.1, 40000) [0 *1]"), std::string::npos)
      << tcpmap;
  EXPECT_EQ(h.read("udp_mappings"), "");
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(Ipv4AddressTranslator, PortConflictsAndSequentialAllocation) {
  ElementHarness h("Ipv4AddressTranslator", {{"input_spec", {"pattern 192.0.2.1 5000-5009 - - 0 1"}}});
  // two inside hosts use the same source port to the same server: the second gets another port
  Result r = h.push({tcp("10.0.0.1", "1.1.1.1", 5000, 443), tcp("10.0.0.2", "1.1.1.1", 5000, 443)});
  ASSERT_EQ(r.out[0].size(), 2u);
  EXPECT_EQ(tuple(r.out[0][0]).sp, 5000);
  uint16_t p2 = tuple(r.out[0][1]).sp;
  EXPECT_NE(p2, 5000);
  EXPECT_GE(p2, 5000);
  EXPECT_LE(p2, 5009);

  ElementHarness s("Ipv4AddressTranslator", {{"input_spec", {"pattern 192.0.2.1 1024-1026# - - 0 1"}}});
  r = s.push({udp("10.0.0.1", "1.1.1.1", 7, 53), udp("10.0.0.2", "1.1.1.1", 7, 53), udp("10.0.0.3", "1.1.1.1", 7, 53),
              udp("10.0.0.4", "1.1.1.1", 7, 53)});
  ASSERT_EQ(r.out[0].size(), 3u);
  EXPECT_EQ(tuple(r.out[0][0]).sp, 1024);
  EXPECT_EQ(tuple(r.out[0][1]).sp, 1025);
  EXPECT_EQ(tuple(r.out[0][2]).sp, 1026);
  EXPECT_EQ(r.dropped, 1u);  // range exhausted for this destination
  EXPECT_EQ(s.read("mapping_failures"), 1);
  EXPECT_EQ(s.read("mappings_count"), 3);
  for (auto& b : r.out[0]) expect_valid(b);
  // the same ports to another destination do not conflict
  r = s.push({udp("10.0.0.4", "2.2.2.2", 7, 53)});
  EXPECT_EQ(r.out[0].size(), 1u);
}

TEST(Ipv4AddressTranslator, RandomPortsStayInRange) {
  ElementHarness h("Ipv4AddressTranslator", {{"input_spec", {"pattern 192.0.2.1 30000-30099? - - 0 0"}}});
  std::vector<Bytes> in;
  for (int i = 0; i < 100; ++i) in.push_back(tcp("10.0.1." + std::to_string(i), "3.3.3.3", 30000, 22));
  Result r = h.push(in);
  ASSERT_EQ(r.out[0].size(), 100u);
  std::set<uint16_t> ports;
  for (auto& b : r.out[0]) {
    uint16_t p = tuple(b).sp;
    EXPECT_GE(p, 30000);
    EXPECT_LE(p, 30099);
    ports.insert(p);
  }
  EXPECT_EQ(ports.size(), 100u);  // every flow got its own port
}

TEST(Ipv4AddressTranslator, DestinationNatAndKeepAndPass) {
  ElementHarness h("Ipv4AddressTranslator",
                   {{"input_spec", {"pattern - - 10.0.0.5 8080 0 1", "keep 2 3", "pass 4", "discard"}}});
  EXPECT_EQ(h.element().input_count(), 4);
  EXPECT_EQ(h.element().output_count(), 5);
  Result r = h.push({tcp("203.0.113.9", "198.51.100.1", 51000, 80)}, 0);
  ASSERT_EQ(r.out[0].size(), 1u);
  Tuple t = tuple(r.out[0][0]);
  EXPECT_EQ(t.sa, ip("203.0.113.9"));
  EXPECT_EQ(t.sp, 51000);
  EXPECT_EQ(t.da, ip("10.0.0.5"));
  EXPECT_EQ(t.dp, 8080);
  expect_valid(r.out[0][0]);
  // the server's reply (arriving on any input) is turned back into the public address
  r = h.push({tcp("10.0.0.5", "203.0.113.9", 8080, 51000)}, 3);
  ASSERT_EQ(r.out[1].size(), 1u);
  t = tuple(r.out[1][0]);
  EXPECT_EQ(t.sa, ip("198.51.100.1"));
  EXPECT_EQ(t.sp, 80);
  expect_valid(r.out[1][0]);

  Bytes k = udp("10.1.1.1", "10.2.2.2", 1000, 2000);
  r = h.push({k}, 1);
  ASSERT_EQ(r.out[2].size(), 1u);
  EXPECT_EQ(r.out[2][0], k);  // keep: unchanged
  Bytes kr = udp("10.2.2.2", "10.1.1.1", 2000, 1000);
  r = h.push({kr}, 3);
  ASSERT_EQ(r.out[3].size(), 1u);
  EXPECT_EQ(r.out[3][0], kr);

  Bytes p = tcp("7.7.7.7", "8.8.8.8", 1, 2);
  uint64_t before = h.read("mappings_count").get<uint64_t>();
  r = h.push({p}, 2);
  ASSERT_EQ(r.out[4].size(), 1u);
  EXPECT_EQ(r.out[4][0], p);
  EXPECT_EQ(h.read("mappings_count").get<uint64_t>(), before);  // pass installs nothing
  r = h.push({p}, 3);
  EXPECT_EQ(r.dropped, 1u);
}

TEST(Ipv4AddressTranslator, NonTranslatablePacketsPassOrDrop) {
  ElementHarness h("Ipv4AddressTranslator", {{"input_spec", {"pattern 192.0.2.1 - - - 0 1", "pass 1"}}});
  Frame icmp;
  icmp.proto = 1;
  Frame v6;
  v6.ipv6 = true;
  v6.src_ip = "::1";
  v6.dst_ip = "::2";
  v6.proto = 6;
  Frame arp;
  arp.eth_type = 0x0806;
  arp.proto = 255;
  Bytes trunc = tcp("1.1.1.1", "2.2.2.2", 1, 2);
  trunc.resize(14 + 20 + 10);  // TCP header cut
  std::vector<Bytes> junk = {build(icmp), build(v6), build(arp), trunc, Bytes(5, 0), Bytes(14, 0xff)};
  Result r = h.push(junk, 0);
  EXPECT_EQ(r.total(), 0u);
  EXPECT_EQ(r.dropped, junk.size());
  r = h.push(junk, 1);
  ASSERT_EQ(r.out[1].size(), junk.size());
  for (size_t i = 0; i < junk.size(); ++i) EXPECT_EQ(r.out[1][i], junk[i]);
  EXPECT_EQ(h.read("mappings_count"), 0);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(Ipv4AddressTranslator, UdpZeroChecksumStaysZero) {
  ElementHarness h("Ipv4AddressTranslator", {{"input_spec", {"pattern 192.0.2.1 - - - 0 1"}}});
  Bytes in = udp4("10.0.0.1", "8.8.4.4", 3333, 53, "q");  // checksum 0
  Bytes o = h.push({in}).out[0].at(0);
  EXPECT_EQ(be16(o, offsets(o).l4 + 6), 0);
  EXPECT_TRUE(ipv4_checksum_ok(o));
  EXPECT_EQ(tuple(o).sa, ip("192.0.2.1"));
}

TEST(Ipv4AddressTranslator, TimeoutsAndReaping) {
  ElementHarness h("Ipv4AddressTranslator", {{"input_spec", {"pattern 192.0.2.1 - - - 0 1", "drop"}},
                                             {"udp_timeout", 10},
                                             {"tcp_nodata_timeout", 30},
                                             {"tcp_done_timeout", 2},
                                             {"reap_interval", 60},
                                             {"mapping_capacity", 16}});
  h.set_now(1 * kSec);
  h.run_task();  // arms the reaper
  h.push({udp("10.0.0.1", "8.8.8.8", 1000, 53), tcp("10.0.0.2", "8.8.8.8", 2000, 80, "")});
  EXPECT_EQ(h.read("mappings_count"), 2);
  h.set_now(9 * kSec);
  EXPECT_EQ(h.push({udp("8.8.8.8", "192.0.2.1", 53, 1000)}, 1).out[1].size(), 1u);  // refreshed: expires at 19 s
  h.set_now(18 * kSec);
  EXPECT_EQ(h.push({udp("8.8.8.8", "192.0.2.1", 53, 1000)}, 1).out[1].size(), 1u);
  h.set_now(29 * kSec);  // UDP idle 11 s > udp_timeout
  Result r = h.push({udp("8.8.8.8", "192.0.2.1", 53, 1000)}, 1);
  EXPECT_EQ(r.total(), 0u);
  EXPECT_EQ(h.read("mappings_count"), 1);  // the lookup removed the expired flow
  // TCP without data lives tcp_nodata_timeout (30 s from 1 s)...
  h.set_now(30 * kSec);
  EXPECT_EQ(h.push({tcp("8.8.8.8", "192.0.2.1", 80, 2000, "")}, 1).out[1].size(), 1u);
  // ...and a FIN switches it to tcp_done_timeout (2 s)
  h.push({tcp("10.0.0.2", "8.8.8.8", 2000, 80, "", 0x11)});
  h.set_now(33 * kSec);
  EXPECT_EQ(h.push({tcp("8.8.8.8", "192.0.2.1", 80, 2000, "")}, 1).total(), 0u);
  // the reaper sweeps expired flows every reap_interval (armed at 1 s: first sweep at 61 s)
  h.set_now(40 * kSec);
  h.push({udp("10.0.0.9", "8.8.8.8", 1, 53)});  // expires at 50 s
  EXPECT_EQ(h.read("mappings_count"), 1);
  h.set_now(55 * kSec);
  h.run_task();
  EXPECT_EQ(h.read("mappings_count"), 1);  // expired but not reaped yet
  h.set_now(61 * kSec);
  h.run_task();
  EXPECT_EQ(h.read("mappings_count"), 0);
}

TEST(Ipv4AddressTranslator, CapacityGuaranteeAndEviction) {
  ElementHarness h("Ipv4AddressTranslator", {{"input_spec", {"pattern 192.0.2.1 - - - 0 1"}},
                                             {"mapping_capacity", 2},
                                             {"udp_guarantee", 5},
                                             {"udp_timeout", 100}});
  EXPECT_EQ(h.read("capacity"), "2 0");
  h.set_now(10 * kSec);
  Result r =
      h.push({udp("10.0.0.1", "8.8.8.8", 1, 53), udp("10.0.0.2", "8.8.8.8", 2, 53), udp("10.0.0.3", "8.8.8.8", 3, 53)});
  EXPECT_EQ(r.out[0].size(), 2u);
  EXPECT_EQ(r.dropped, 1u);  // both flows are under guarantee
  EXPECT_EQ(h.read("mapping_failures"), 1);
  h.set_now(16 * kSec);  // guarantees over, flows not expired
  r = h.push({udp("10.0.0.3", "8.8.8.8", 3, 53)});
  EXPECT_EQ(r.out[0].size(), 1u);  // one old flow was evicted
  EXPECT_EQ(h.read("mappings_count"), 2);
  h.write("capacity", 1);
  EXPECT_EQ(h.read("capacity"), "1 0");
  expect_illegal(h, "capacity", 3);  // above the configured table size
  expect_illegal(h, "capacity", 0);
  expect_illegal(h, "mappings_count", 1);
}

TEST(Ipv4AddressTranslator, WorkersSplitThePortRange) {
  ElementHarness h("Ipv4AddressTranslator", {{"input_spec", {"pattern 192.0.2.1 2000-2009 - - 0 1"}}}, "nat", 2);
  EXPECT_EQ(h.read("capacity"), "65536 0");
  for (unsigned w = 0; w < 2; ++w) {
    h.set_worker(w);
    std::vector<Bytes> in;
    for (int i = 0; i < 6; ++i) in.push_back(tcp("10.0.0." + std::to_string(i + 10 * w), "1.1.1.1", 2000, 443));
    Result r = h.push(in);
    ASSERT_EQ(r.out[0].size(), 5u) << "worker " << w;  // 5 ports of the range belong to each worker
    for (auto& b : r.out[0]) EXPECT_EQ(tuple(b).sp % 2, w);
  }
  EXPECT_EQ(h.read("mappings_count"), 10);
  EXPECT_EQ(h.read("mapping_failures"), 2);
}

TEST(Ipv4AddressTranslator, ManyFlowsChurnKeepsTableConsistent) {
  // Flows come and go through a small table; every surviving mapping must still answer.
  ElementHarness h("Ipv4AddressTranslator", {{"input_spec", {"pattern 192.0.2.1 1024-65535 - - 0 1", "drop"}},
                                             {"mapping_capacity", 64},
                                             {"udp_guarantee", 0},
                                             {"udp_timeout", 5}});
  uint64_t now = kSec;
  for (int round = 0; round < 40; ++round) {
    h.set_now(now);
    std::vector<Bytes> in;
    for (int i = 0; i < 20; ++i)
      in.push_back(udp("10." + std::to_string(round) + ".0." + std::to_string(i), "9.9.9.9", uint16_t(1000 + i), 53));
    Result r = h.push(in);
    ASSERT_EQ(r.out[0].size(), 20u) << round;
    // replies for this round's flows are all translated back
    std::vector<Bytes> replies;
    for (auto& b : r.out[0]) {
      Tuple t = tuple(b);
      replies.push_back(udp("9.9.9.9", "192.0.2.1", 53, t.sp));
    }
    Result back = h.push(replies, 1);
    ASSERT_EQ(back.out[1].size(), 20u) << round;
    for (size_t i = 0; i < 20; ++i) EXPECT_EQ(tuple(back.out[1][i]).da, tuple(in[i]).sa);
    now += 2 * kSec;
    ASSERT_LE(h.read("mappings_count").get<uint64_t>(), 64u);
  }
  EXPECT_EQ(h.read("mapping_failures"), 0);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(Ipv4AddressTranslator, BadConfigs) {
  const std::string T = "Ipv4AddressTranslator";
  expect_bad_block(T, json::object(), "input_spec");
  expect_bad_block(T, {{"input_spec", json::array()}}, "input_spec");
  expect_bad_block(T, {{"input_spec", "keep 0 1"}}, "input_spec");
  expect_bad_block(T, {{"input_spec", {"keep 0"}}}, "input_spec[0]");
  expect_bad_block(T, {{"input_spec", {"pass 0", "pass x"}}}, "input_spec[1]");
  expect_bad_block(T, {{"input_spec", {"rewrite 1 2"}}}, "unknown input spec");
  expect_bad_block(T, {{"input_spec", {"pattern 1.2.3 - - - 0 1"}}}, "SADDR");
  expect_bad_block(T, {{"input_spec", {"pattern - 9-3 - - 0 1"}}}, "SPORT");
  expect_bad_block(T, {{"input_spec", {"pattern - - - 70000 0 1"}}}, "DPORT");
  expect_bad_block(T, {{"input_spec", {"pattern - - - - 0"}}}, "pattern");
  expect_bad_block(T, {{"input_spec", {"discard"}}, {"mapping_capacity", 0}}, "mapping_capacity");
  expect_bad_block(T, {{"input_spec", {"discard"}}, {"tcp_timeout", -5}}, "tcp_timeout");
  expect_bad_block(T, {{"input_spec", {"discard"}}, {"udp_timeout", "soon"}}, "udp_timeout");
  expect_bad_block(T, {{"input_spec", {"discard"}}, {"timeout", 5}}, "timeout");
}

TEST(Ipv4AddressTranslator, TcpDataBothWaysGetsTheLongTimeout) {
  ElementHarness h(
      "Ipv4AddressTranslator",
      {{"input_spec", {"pattern 192.0.2.1 - - - 0 1", "drop"}}, {"tcp_timeout", 1000}, {"tcp_nodata_timeout", 30}});
  h.set_now(kSec);
  // flow A: handshake only (padded 60-byte frames carry no data); flow B: data both ways
  h.push({tcp("10.0.0.1", "8.8.8.8", 1111, 80, "", 0x02), tcp("10.0.0.2", "8.8.8.8", 2222, 80, "GET")});
  ASSERT_EQ(
      h.push({tcp("8.8.8.8", "192.0.2.1", 80, 1111, "", 0x12), tcp("8.8.8.8", "192.0.2.1", 80, 2222, "200 OK")}, 1)
          .out[1]
          .size(),
      2u);
  h.set_now(40 * kSec);  // 39 s idle: beyond tcp_nodata_timeout, within tcp_timeout
  Result r = h.push({tcp("8.8.8.8", "192.0.2.1", 80, 1111, "late"), tcp("8.8.8.8", "192.0.2.1", 80, 2222, "more")}, 1);
  ASSERT_EQ(r.out[1].size(), 1u);
  EXPECT_EQ(tuple(r.out[1][0]).dp, 2222);
  EXPECT_EQ(r.dropped, 1u);
}
