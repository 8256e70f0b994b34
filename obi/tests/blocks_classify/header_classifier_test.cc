// HeaderClassifier: every field and value form on crafted frames, first-match order,
// no-match drop, handles, bad configs, truncated frames, and the ClassBench first-match
// reference (fw-4560, acl1-1000) through the compiled classifier.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "classbench.hh"
#include "classify/HeaderClassifier.hh"
#include "engine/testing.hh"
#include "lib/rule_classifier.hh"

using namespace obi;
using namespace obi::testing;
using nlohmann::json;

namespace {

// Output index the single frame left on, -1 when dropped.
int classify_one(const json& rules, const Bytes& frame) {
  ElementHarness h("HeaderClassifier", json{{"match", rules}});
  Result r = h.push({frame});
  for (size_t o = 0; o < r.out.size(); ++o)
    if (!r.out[o].empty()) return static_cast<int>(o);
  EXPECT_EQ(r.dropped, 1u);
  return -1;
}

// Frame with rule `m` alone followed by a catch-all: 0 = matched the rule, 1 = fell through.
int hit(const json& m, const Bytes& frame) { return classify_one(json::array({m, json::object()}), frame); }

Bytes arp_frame(uint16_t op, const std::string& sha, const std::string& spa, const std::string& tha,
                const std::string& tpa) {
  Bytes b;
  put_mac(b, "ff:ff:ff:ff:ff:ff");
  put_mac(b, sha);
  put16(b, 0x0806);
  put16(b, 1);
  put16(b, 0x0800);
  b.push_back(6);
  b.push_back(4);
  put16(b, op);
  put_mac(b, sha);
  in_addr a{};
  inet_pton(AF_INET, spa.c_str(), &a);
  put32(b, ntohl(a.s_addr));
  put_mac(b, tha);
  inet_pton(AF_INET, tpa.c_str(), &a);
  put32(b, ntohl(a.s_addr));
  while (b.size() < 60) b.push_back(0);
  return b;
}

int load_src_port(const Bytes& b) { return b[34] << 8 | b[35]; }

}  // namespace

TEST(HeaderClassifier, EthernetFields) {
  Frame f;
  f.src_mac = "00:11:22:33:44:55";
  f.dst_mac = "66:77:88:99:aa:bb";
  Bytes b = build(f);
  EXPECT_EQ(hit({{"ETH_SRC", "00:11:22:33:44:55"}}, b), 0);
  EXPECT_EQ(hit({{"ETH_SRC", "00:11:22:33:44:56"}}, b), 1);
  EXPECT_EQ(hit({{"eth_dst", "66-77-88-99-aa-bb"}}, b), 0);
  EXPECT_EQ(hit({{"ETH_DST", "66:77:88:00:00:00%ff:ff:ff:00:00:00"}}, b), 0);
  EXPECT_EQ(hit({{"ETH_DST", "66:77:89:00:00:00%ff:ff:ff:00:00:00"}}, b), 1);
  EXPECT_EQ(hit({{"ETH_TYPE", "0x0800"}}, b), 0);
  EXPECT_EQ(hit({{"ETH_TYPE", 2048}}, b), 0);
  EXPECT_EQ(hit({{"ETH_TYPE", "0x86dd"}}, b), 1);
}

TEST(HeaderClassifier, VlanFields) {
  Frame f;
  f.vlans = {static_cast<uint16_t>(5 << 13 | 100)};
  Bytes tagged = build(f);
  Bytes untagged = build(Frame{});
  EXPECT_EQ(hit({{"VLAN_VID", 100}}, tagged), 0);
  EXPECT_EQ(hit({{"VLAN_VID", 101}}, tagged), 1);
  EXPECT_EQ(hit({{"VLAN_VID", "[90:110]"}, {"VLAN_PCP", 5}}, tagged), 0);
  EXPECT_EQ(hit({{"VLAN_VID", 100}, {"VLAN_PCP", 4}}, tagged), 1);
  EXPECT_EQ(hit({{"VLAN_VID", "[0:4095]"}}, untagged), 1);  // absent layer never matches
  EXPECT_EQ(hit({{"ETH_TYPE", "0x0800"}}, tagged), 0);      // type after the tag
}

TEST(HeaderClassifier, Ipv4AndTransportFields) {
  Frame f;
  f.src_ip = "10.1.2.3";
  f.dst_ip = "192.168.7.9";
  f.proto = 6;
  f.src_port = 40000;
  f.dst_port = 443;
  f.tos = 0xb9;  // DSCP 46, ECN 1
  Bytes tcp = build(f);
  json ip = {{"ETH_TYPE", "0x0800"}};
  auto with = [&](json extra) {
    json m = ip;
    for (auto& [k, v] : extra.items()) m[k] = v;
    return m;
  };
  EXPECT_EQ(hit(with({{"IPV4_SRC", "10.1.2.3"}}), tcp), 0);
  EXPECT_EQ(hit(with({{"IPV4_SRC", "10.0.0.0/8"}}), tcp), 0);
  EXPECT_EQ(hit(with({{"IPV4_SRC", "10.1.0.0%255.255.0.0"}}), tcp), 0);
  EXPECT_EQ(hit(with({{"IPV4_SRC", "10.2.0.0/16"}}), tcp), 1);
  EXPECT_EQ(hit(with({{"IPV4_SRC", "0.0.2.3%0.0.255.255"}}), tcp), 0);  // non-prefix mask
  EXPECT_EQ(hit(with({{"IPV4_SRC", "0.0.2.4%0.0.255.255"}}), tcp), 1);
  EXPECT_EQ(hit(with({{"IPV4_DST", "[192.168.7.0:192.168.7.10]"}}), tcp), 0);
  EXPECT_EQ(hit(with({{"IPV4_DST", "[192.168.7.10:]"}}), tcp), 1);
  EXPECT_EQ(hit(with({{"IP_PROTO", 6}}), tcp), 0);
  EXPECT_EQ(hit(with({{"IPV4_PROTO", 17}}), tcp), 1);
  EXPECT_EQ(hit(with({{"IP_DSCP", 46}}), tcp), 0);
  EXPECT_EQ(hit(with({{"IP_ECN", 1}}), tcp), 0);
  EXPECT_EQ(hit(with({{"IP_ECN", 2}}), tcp), 1);
  json t = with({{"IP_PROTO", 6}});
  auto tw = [&](json extra) {
    json m = t;
    for (auto& [k, v] : extra.items()) m[k] = v;
    return m;
  };
  EXPECT_EQ(hit(tw({{"TCP_DST", 443}}), tcp), 0);
  EXPECT_EQ(hit(tw({{"TCP_DST", "[80,8080,[400:500]]"}}), tcp), 0);
  EXPECT_EQ(hit(tw({{"TCP_DST", "[80,8080,[444:]]"}}), tcp), 1);
  EXPECT_EQ(hit(tw({{"TCP_SRC", "[:40000]"}}), tcp), 0);
  EXPECT_EQ(hit(tw({{"TCP_SRC", "[:39999]"}}), tcp), 1);
  EXPECT_EQ(hit(tw({{"TCP_DST", "0x1bb%0xff"}}), tcp), 0);  // 443 & 0xff = 0xbb
  EXPECT_EQ(hit(tw({{"TCP_DST", "0xbb%0xff"}}), tcp), 0);
  EXPECT_EQ(hit(tw({{"TCP_DST", "0xbc%0xff"}}), tcp), 1);

  Frame u = f;
  u.proto = 17;
  Bytes udp = build(u);
  EXPECT_EQ(hit(with({{"IP_PROTO", 17}, {"UDP_DST", 443}, {"UDP_SRC", 40000}}), udp), 0);
  EXPECT_EQ(hit(tw({{"TCP_DST", 443}}), udp), 1);  // TCP field absent on UDP
  Frame s = f;
  s.proto = 132;
  EXPECT_EQ(hit(with({{"IP_PROTO", 132}, {"SCTP_DST", 443}, {"SCTP_SRC", 40000}}), build(s)), 0);
  Frame i = f;
  i.proto = 1;
  i.icmp_type = 3;
  i.icmp_code = 4;
  Bytes icmp = build(i);
  EXPECT_EQ(hit(with({{"IP_PROTO", 1}, {"ICMPV4_TYPE", 3}, {"ICMPV4_CODE", 4}}), icmp), 0);
  EXPECT_EQ(hit(with({{"IP_PROTO", 1}, {"ICMPV4_TYPE", 8}}), icmp), 1);
}

TEST(HeaderClassifier, Ipv6Fields) {
  Frame f;
  f.ipv6 = true;
  f.src_ip = "2001:db8::1";
  f.dst_ip = "2001:db8:0:1::ff";
  f.proto = 6;
  f.dst_port = 22;
  f.tos = 0x29;  // traffic class: DSCP 10, ECN 1
  Bytes b = build(f);
  json v6 = {{"ETH_TYPE", "0x86dd"}};
  auto with = [&](json extra) {
    json m = v6;
    for (auto& [k, v] : extra.items()) m[k] = v;
    return m;
  };
  EXPECT_EQ(hit(with({{"IPV6_SRC", "2001:db8::1"}}), b), 0);
  EXPECT_EQ(hit(with({{"IPV6_SRC", "2001:db8::2"}}), b), 1);
  EXPECT_EQ(hit(with({{"IPV6_DST", "2001:db8::/32"}}), b), 0);
  EXPECT_EQ(hit(with({{"IPV6_DST", "2001:db8:0:1::/64"}}), b), 0);
  EXPECT_EQ(hit(with({{"IPV6_DST", "2001:db8:0:2::/64"}}), b), 1);
  EXPECT_EQ(hit(with({{"IPV6_DST", "2001:db8:0:1::f0/124"}}), b), 0);
  EXPECT_EQ(hit(with({{"IPV6_DST", "[2001:db8::1,2001:db8:0:1::ff]"}}), b), 0);
  EXPECT_EQ(hit(with({{"IPV6_DST", "[2001:db8::1,2001:db8:0:1::fe]"}}), b), 1);
  EXPECT_EQ(hit(with({{"IP_DSCP", 10}, {"IP_ECN", 1}}), b), 0);
  EXPECT_EQ(hit(with({{"IP_PROTO", 6}, {"TCP_DST", 22}}), b), 0);
  EXPECT_EQ(hit(with({{"IPV6_FLABEL", 0}}), b), 0);
  EXPECT_EQ(hit({{"ETH_TYPE", "0x0800"}, {"IPV4_SRC", "0.0.0.0/0"}}, b), 1);
  Frame i = f;
  i.proto = 58;
  i.icmp_type = 128;
  EXPECT_EQ(hit(with({{"IP_PROTO", 58}, {"ICMPV6_TYPE", 128}, {"ICMPV6_CODE", 0}}), build(i)), 0);
}

// 128-bit ranges are split over two 64-bit dimensions and verified exactly.
TEST(HeaderClassifier, Ipv6RangesAreExact) {
  using openbox::u128;
  auto addr = [](uint64_t hi, uint64_t lo) { return u128(hi) << 64 | lo; };
  openbox::HeaderMatch m;
  openbox::FieldMatch fm;
  fm.field = openbox::MatchField::IPV6_DST;
  openbox::MatchTerm t;
  t.kind = openbox::MatchTerm::Kind::kRange;
  t.min = addr(0x20010db800000000ull, 0xff);
  t.max = addr(0x20010db800000001ull, 0x10);
  fm.terms.push_back(t);
  m.fields.push_back(fm);
  obi::blocks::RuleClassifier c({m, openbox::HeaderMatch{}});
  PacketPool pool(4);
  auto cls = [&](const char* dst) {
    Frame f;
    f.ipv6 = true;
    f.src_ip = "::1";
    f.dst_ip = dst;
    Packet* p = make_packet(pool, build(f));
    int r = c.classify(*p);
    pool.free(p);
    return r;
  };
  EXPECT_EQ(cls("2001:db8::ff"), 0);
  EXPECT_EQ(cls("2001:db8::fe"), 1);
  EXPECT_EQ(cls("2001:db8::ffff:ffff"), 0);
  EXPECT_EQ(cls("2001:db8:0:1::10"), 0);
  EXPECT_EQ(cls("2001:db8:0:1::11"), 1);
  EXPECT_EQ(cls("2001:db8:0:2::"), 1);
}

TEST(HeaderClassifier, ArpFields) {
  Bytes b = arp_frame(1, "02:00:00:00:00:0a", "10.0.0.1", "00:00:00:00:00:00", "10.0.0.2");
  json arp = {{"ETH_TYPE", "0x0806"}};
  auto with = [&](json extra) {
    json m = arp;
    for (auto& [k, v] : extra.items()) m[k] = v;
    return m;
  };
  EXPECT_EQ(hit(with({{"ARP_OP", 1}}), b), 0);
  EXPECT_EQ(hit(with({{"ARP_OP", 2}}), b), 1);
  EXPECT_EQ(hit(with({{"ARP_SPA", "10.0.0.1"}, {"ARP_TPA", "10.0.0.0/30"}}), b), 0);
  EXPECT_EQ(hit(with({{"ARP_SHA", "02:00:00:00:00:0a"}, {"ARP_THA", "00:00:00:00:00:00"}}), b), 0);
  EXPECT_EQ(hit(with({{"ARP_TPA", "10.0.0.3"}}), b), 1);
}

TEST(HeaderClassifier, FirstMatchWinsAndNoMatchDrops) {
  json rules = json::array({
      {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 17}, {"UDP_DST", 53}},
      {{"ETH_TYPE", "0x0800"}, {"IPV4_SRC", "10.0.0.0/8"}},
      {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 17}},
  });
  ElementHarness h("HeaderClassifier", json{{"match", rules}});
  ASSERT_EQ(h.element().output_count(), 3);
  Result r = h.push({udp4("10.0.0.1", "1.1.1.1", 1, 53), udp4("10.0.0.1", "1.1.1.1", 1, 54),
                     udp4("11.0.0.1", "1.1.1.1", 1, 54), tcp4("11.0.0.1", "1.1.1.1", 1, 54),
                     udp4("11.0.0.1", "1.1.1.1", 1, 53)});
  EXPECT_EQ(r.out[0].size(), 2u);
  EXPECT_EQ(r.out[1].size(), 1u);
  EXPECT_EQ(r.out[2].size(), 1u);
  EXPECT_EQ(r.dropped, 1u);
  EXPECT_EQ(h.read("count"), json({2, 1, 1}));
  EXPECT_EQ(h.read("count_1"), 1);
  EXPECT_EQ(h.read("no_match"), 1);
  json bytes = h.read("byte_count");
  EXPECT_EQ(bytes[0].get<uint64_t>(), r.out[0][0].size() + r.out[0][1].size());
  EXPECT_TRUE(h.read("rate").is_array());
  EXPECT_EQ(h.read("byte_rate").size(), 3u);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("count"), json({0, 0, 0}));
  EXPECT_EQ(h.pool().available(), h.pool().capacity());  // nothing leaked
  EXPECT_THROW(h.read("bogus"), openbox::ProtocolError);
}

TEST(HeaderClassifier, RatesFollowTraffic) {
  ElementHarness h("HeaderClassifier", json{{"match", json::array({json::object()})}});
  // 10 packets every 10 ms for 3 s of worker clock (the steady clock, as the engine's): 1000 pps
  const uint64_t start = obi::blocks::clock_now_ns() - 3'000'000'000ull;
  for (int t = 0; t <= 300; ++t) {
    h.set_now(start + uint64_t(t) * 10'000'000ull);
    std::vector<Bytes> frames(10, udp4("10.0.0.1", "10.0.0.2", 1, 2));
    h.push(frames);
  }
  // a read decays the rate with the time since the last packet (time constant 1 s)
  const uint64_t last = start + 300ull * 10'000'000ull;
  double rate = h.read("rate")[0].get<double>();
  double idle = static_cast<double>(obi::blocks::clock_now_ns() - last) * 1e-9;
  EXPECT_NEAR(rate, 1000.0 * std::exp(-idle), 100.0);
  EXPECT_NEAR(h.read("byte_rate")[0].get<double>(), rate * 60, 6000.0);
}

TEST(HeaderClassifier, BadConfigsAreRejected) {
  auto err = [](json cfg) -> openbox::ErrorSubtype {
    try {
      make_element("HeaderClassifier", cfg, "fw");
    } catch (const openbox::ProtocolError& e) {
      EXPECT_NE(std::string(e.what()).find("fw"), std::string::npos) << e.what();
      return e.subtype();
    }
    ADD_FAILURE() << "accepted " << cfg.dump();
    return openbox::ErrorSubtype::INTERNAL_ERROR;
  };
  EXPECT_EQ(err(json::object()), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(err({{"match", "x"}}), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(err({{"match", json::array()}}), openbox::ErrorSubtype::BAD_BLOCK);
  EXPECT_EQ(err({{"match", json::array({{{"NO_SUCH_FIELD", 1}}})}}), openbox::ErrorSubtype::BAD_HEADER_MATCH);
  EXPECT_EQ(err({{"match", json::array({{{"TCP_DST", 80}}})}}),
            openbox::ErrorSubtype::BAD_HEADER_MATCH);  // prerequisite
  EXPECT_EQ(err({{"match", json::array({{{"ETH_TYPE", "0x0800"}, {"IPV4_SRC", "300.0.0.1"}}})}}),
            openbox::ErrorSubtype::BAD_HEADER_MATCH);
  EXPECT_EQ(err({{"match", json::array({json::object(), 5})}}), openbox::ErrorSubtype::BAD_HEADER_MATCH);
}

// A SetProcessingGraphRequest's rules are read once, by the protocol decoder; the block
// takes that list (ElementArgs::match) instead of reading its config again. Here the
// list given is another config's, so the test sees which one the block classifies with
// (the decoder always gives the list of the block's own config).
TEST(HeaderClassifier, TakesTheRulesTheDecoderRead) {
  const auto tcp = [](uint16_t dport) { return tcp4("10.0.0.1", "10.0.0.2", 1234, dport); };
  const json rule80 = {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 80}};
  const json rule443 = {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 443}};
  const json config = {{"match", json::array({rule80, json::object()})}};
  auto read = std::make_shared<const std::vector<openbox::HeaderMatch>>(std::vector<openbox::HeaderMatch>{
      openbox::parse_header_match(rule443), openbox::parse_header_match(json::object())});
  auto out_of = [&](openbox::SharedHeaderMatches given, const Bytes& frame) {
    ElementArgs args{"fw", "HeaderClassifier", config, 1};
    args.match = given;
    ElementHarness h(std::unique_ptr<Element>(find_element("HeaderClassifier")(args)));
    Result r = h.push({frame});
    for (size_t o = 0; o < r.out.size(); ++o)
      if (!r.out[o].empty()) return static_cast<int>(o);
    return -1;
  };
  EXPECT_EQ(out_of(read, tcp(443)), 0);
  EXPECT_EQ(out_of(read, tcp(80)), 1);
  // No list, or one that does not fit the config (another rule count): the config's rules.
  EXPECT_EQ(out_of(nullptr, tcp(80)), 0);
  auto longer = std::make_shared<const std::vector<openbox::HeaderMatch>>(3, openbox::parse_header_match(rule443));
  EXPECT_EQ(out_of(longer, tcp(80)), 0);
  EXPECT_EQ(out_of(longer, tcp(443)), 1);
}

TEST(HeaderClassifier, TruncatedFramesNeverCrash) {
  json rules = json::array({
      {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 80}},
      {{"ETH_TYPE", "0x86dd"}, {"IPV6_SRC", "::/0"}, {"IP_PROTO", 58}, {"ICMPV6_TYPE", 135}},
      {{"ETH_TYPE", "0x0806"}, {"ARP_SPA", "10.0.0.1"}},
      {{"ETH_SRC", "02:00:00:00:00:01"}},
  });
  ElementHarness h("HeaderClassifier", json{{"match", rules}});
  Frame v6;
  v6.ipv6 = true;
  v6.src_ip = "::1";
  v6.dst_ip = "::2";
  v6.proto = 58;
  v6.icmp_type = 135;
  std::vector<Bytes> fulls = {tcp4("1.1.1.1", "2.2.2.2", 1, 80, "GET /"), build(v6),
                              arp_frame(1, "02:00:00:00:00:01", "10.0.0.1", "00:00:00:00:00:00", "10.0.0.2")};
  std::vector<Bytes> cut;
  for (const Bytes& f : fulls)
    for (size_t n = 0; n <= f.size(); ++n) cut.emplace_back(f.begin(), f.begin() + n);
  Result r = h.push(cut);
  EXPECT_EQ(r.total() + r.dropped, cut.size());
  // a full TCP frame (ports need 4 bytes of TCP, the parser wants the whole header) matches rule 0
  EXPECT_GE(r.out[0].size(), 1u);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(HeaderClassifier, ManyOutputsInOneBatchKeepOrder) {
  json rules = json::array();
  for (int p = 0; p < 8; ++p) rules.push_back({{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 17}, {"UDP_DST", p}});
  ElementHarness h("HeaderClassifier", json{{"match", rules}});
  std::vector<Bytes> frames;
  for (int i = 0; i < 32; ++i)
    frames.push_back(udp4("1.1.1.1", "2.2.2.2", static_cast<uint16_t>(i), static_cast<uint16_t>(i % 8)));
  Result r = h.push(frames);
  for (int o = 0; o < 8; ++o) {
    ASSERT_EQ(r.out[o].size(), 4u);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(load_src_port(r.out[o][k]), o + 8 * k);
  }
}

// --------------------------------------------------------------------------- ClassBench

namespace {

void check_classbench(const std::string& set) {
  const std::string dir = obi::classbench::data_dir();
  auto rules_json = obi::classbench::classbench_rules(dir + "/" + set + ".classbench");
  std::vector<openbox::HeaderMatch> rules;
  for (const auto& r : rules_json) rules.push_back(openbox::parse_header_match(r));
  obi::blocks::RuleClassifier c(rules);
  auto expect = obi::classbench::firstmatch(dir + "/" + set + ".trace.firstmatch");
  // the trace as frames (the pcap exists for fw-4560 only; others are built from the .trace)
  std::vector<Bytes> frames;
  if (set == "fw-4560") {
    frames = obi::classbench::pcap_frames(dir + "/fw-4560.trace.pcap");
  } else {
    std::ifstream in(dir + "/" + set + ".trace");
    uint64_t s, d, sp, dp, pr, fl, gen;
    while (in >> s >> d >> sp >> dp >> pr >> fl >> gen) {
      Frame f;
      f.src_ip = std::to_string(s >> 24) + "." + std::to_string(s >> 16 & 255) + "." + std::to_string(s >> 8 & 255) +
                 "." + std::to_string(s & 255);
      f.dst_ip = std::to_string(d >> 24) + "." + std::to_string(d >> 16 & 255) + "." + std::to_string(d >> 8 & 255) +
                 "." + std::to_string(d & 255);
      f.proto = static_cast<uint8_t>(pr);
      f.src_port = static_cast<uint16_t>(sp);
      f.dst_port = static_cast<uint16_t>(dp);
      frames.push_back(build(f));
    }
  }
  ASSERT_EQ(frames.size(), expect.size());
  PacketPool pool(4);
  size_t bad = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    Packet* p = make_packet(pool, frames[i]);
    int got = c.classify(*p);
    pool.free(p);
    if (got != expect[i] && ++bad <= 5)
      ADD_FAILURE() << set << " line " << i + 1 << ": got " << got << ", expected " << expect[i];
  }
  EXPECT_EQ(bad, 0u) << set;
}

}  // namespace

TEST(HeaderClassifierClassBench, Fw4560FirstMatch) { check_classbench("fw-4560"); }
TEST(HeaderClassifierClassBench, Acl1000FirstMatch) { check_classbench("acl1-1000"); }
TEST(HeaderClassifierClassBench, Fw10000FirstMatch) { check_classbench("fw1-10000"); }

TEST(HeaderClassifierClassBench, ElementCountsMatchTheReference) {
  const std::string dir = obi::classbench::data_dir();
  json rules = obi::classbench::classbench_rules(dir + "/fw-4560.classbench");
  ElementHarness h("HeaderClassifier", json{{"match", rules}}, "fw", 1, 8192);
  auto frames = obi::classbench::pcap_frames(dir + "/fw-4560.trace.pcap");
  auto expect = obi::classbench::firstmatch(dir + "/fw-4560.trace.firstmatch");
  Result r = h.push(frames);
  std::map<int, uint64_t> hist;
  for (int e : expect) ++hist[e];
  json count = h.read("count");
  ASSERT_EQ(count.size(), 4560u);
  for (int o = 0; o < 4560; ++o) {
    uint64_t want = hist.count(o) ? hist[o] : 0;
    ASSERT_EQ(count[o].get<uint64_t>(), want) << "rule " << o;
    ASSERT_EQ(r.out[o].size(), want) << "rule " << o;
  }
  EXPECT_EQ(r.dropped, 0u);
}

TEST(HeaderClassifier, TheRteAclBuildStartsWhenTheBlockGoesLive) {
  // Built but not activated (a graph still compiling, refused, or only checked): the bit
  // vectors answer and no background build runs.
  ElementHarness h("HeaderClassifier", json{{"match", json::array({json{{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}}})}});
  EXPECT_EQ(h.element().settle(std::chrono::milliseconds(300)), "bitvector");
  h.element().activate();
  EXPECT_EQ(h.element().settle(std::chrono::seconds(60)), "acl");
  Result r = h.push({tcp4("10.0.0.1", "10.0.0.2", 1, 80), udp4("10.0.0.1", "10.0.0.2", 1, 53)});
  EXPECT_EQ(r.out[0].size(), 1u);
  EXPECT_EQ(r.dropped, 1u);
}
