// MultiClassifier: the rte_acl structure built in the background answers exactly like the
// bit-vector RuleClassifier (ClassBench fw-4560 over its trace; random rule sets over every
// header field with masks, ranges, multi-term values, IPv6, absent layers; several sets
// at once), recompiling or destroying during a build is safe, and the fallbacks report why.
// Through the per-worker flow caches the answers stay the same (every field family,
// IPv6, fused sets, colliding flow hashes), and a recompile starts with empty caches.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <random>

#include "classbench.hh"
#include "engine/pool.hh"
#include "engine/testing.hh"
#include "lib/flow_cache.hh"
#include "lib/multi_classifier.hh"
#include "lib/rule_classifier.hh"

using namespace obi;
using namespace obi::testing;
using obi::blocks::MultiClassifier;
using obi::blocks::RuleClassifier;
using openbox::FieldMatch;
using openbox::HeaderMatch;
using openbox::MatchField;
using openbox::MatchTerm;
using openbox::u128;

namespace {

constexpr auto kWait = std::chrono::seconds(60);

std::string data_dir() {
  if (const char* d = std::getenv("OPENBOX_DATA")) return d;
  return obi::classbench::data_dir();
}

// Every packet of `pkts`: the Multi answer of each set equals the RuleClassifier answer.
void expect_agree(const MultiClassifier& mc, const std::vector<std::vector<HeaderMatch>>& sets,
                  const std::vector<Packet*>& pkts) {
  std::vector<RuleClassifier> ref(sets.size());
  for (size_t k = 0; k < sets.size(); ++k) ref[k].compile(sets[k]);
  const unsigned ns = mc.set_count();
  ASSERT_EQ(ns, sets.size());
  std::vector<int32_t> out(kBatchSize * std::max(1u, ns));
  size_t mismatches = 0;
  for (size_t i = 0; i < pkts.size(); i += kBatchSize) {
    uint32_t n = static_cast<uint32_t>(std::min<size_t>(kBatchSize, pkts.size() - i));
    for (uint32_t j = 0; j < n; ++j) pkts[i + j]->parsed = false;
    mc.classify_batch(&pkts[i], n, out.data());
    for (uint32_t j = 0; j < n; ++j)
      for (unsigned k = 0; k < ns; ++k) {
        int32_t want = ref[k].classify(*pkts[i + j]);
        if (out[j * ns + k] != want && ++mismatches <= 10)
          ADD_FAILURE() << "packet " << i + j << " set " << k << ": " << mc.engine() << " says " << out[j * ns + k]
                        << ", bit vector says " << want;
      }
  }
  EXPECT_EQ(mismatches, 0u);
}

// The same through worker `worker`'s flow cache, every packet `passes` times (later passes
// mostly from the cache). `hash`: when set, every packet's flow hash is replaced by it
// (a pathological hash: all flows in one bucket). Returns the cache hits of the run.
uint64_t expect_agree_cached(const MultiClassifier& mc, const std::vector<std::vector<HeaderMatch>>& sets,
                             const std::vector<Packet*>& pkts, unsigned worker = 0, int passes = 2,
                             std::optional<uint32_t> hash = std::nullopt) {
  std::vector<RuleClassifier> ref(sets.size());
  for (size_t k = 0; k < sets.size(); ++k) ref[k].compile(sets[k]);
  const unsigned ns = mc.set_count();
  EXPECT_EQ(ns, sets.size());
  std::vector<int32_t> want(pkts.size() * ns);
  for (size_t i = 0; i < pkts.size(); ++i)
    for (unsigned k = 0; k < ns; ++k) {
      pkts[i]->parsed = false;
      want[i * ns + k] = ref[k].classify(*pkts[i]);
    }
  std::vector<uint32_t> saved(pkts.size());
  for (size_t i = 0; i < pkts.size(); ++i) {
    saved[i] = pkts[i]->flow_hash;
    if (hash) pkts[i]->flow_hash = *hash;
  }
  const uint64_t hits0 = mc.cache_stats().hits;
  std::vector<int32_t> out(kBatchSize * std::max(1u, ns));
  size_t mismatches = 0;
  for (int pass = 0; pass < passes; ++pass)
    for (size_t i = 0; i < pkts.size(); i += kBatchSize) {
      uint32_t n = static_cast<uint32_t>(std::min<size_t>(kBatchSize, pkts.size() - i));
      for (uint32_t j = 0; j < n; ++j) pkts[i + j]->parsed = false;
      mc.classify_batch(&pkts[i], n, out.data(), worker);
      for (uint32_t j = 0; j < n; ++j)
        for (unsigned k = 0; k < ns; ++k)
          if (out[j * ns + k] != want[(i + j) * ns + k] && ++mismatches <= 10)
            ADD_FAILURE() << "pass " << pass << " packet " << i + j << " set " << k << ": cached " << mc.engine()
                          << " says " << out[j * ns + k] << ", bit vector says " << want[(i + j) * ns + k];
    }
  for (size_t i = 0; i < pkts.size(); ++i) pkts[i]->flow_hash = saved[i];
  EXPECT_EQ(mismatches, 0u);
  return mc.cache_stats().hits - hits0;
}

std::vector<HeaderMatch> fw_rules() {
  std::vector<HeaderMatch> rules;
  for (auto& j : obi::classbench::classbench_rules(data_dir() + "/fw-4560.classbench"))
    rules.push_back(openbox::parse_header_match(j));
  return rules;
}

// --- random packets over every layer the fields read ----------------------------------

struct Gen {
  std::mt19937_64 rng;
  explicit Gen(uint64_t seed) : rng(seed) {}
  uint64_t r(uint64_t n) { return rng() % n; }
  std::string ip4() {
    static const char* a[] = {"10.0.0.1", "10.0.0.2", "10.1.2.3", "192.168.1.7", "172.16.5.4"};
    return a[r(5)];
  }
  std::string ip6() {
    static const char* a[] = {"2001:db8::1", "2001:db8::2", "fe80::1", "2001:db8:1::ff", "::1"};
    return a[r(5)];
  }
  std::string mac() {
    static const char* a[] = {"02:00:00:00:00:01", "02:00:00:00:00:02", "00:11:22:33:44:55"};
    return a[r(3)];
  }
  uint16_t port() {
    static const uint16_t a[] = {22, 53, 80, 443, 1234, 8080, 65535};
    return a[r(7)];
  }

  Bytes packet() {
    Frame f;
    f.src_mac = mac();
    f.dst_mac = mac();
    for (uint64_t v = r(4) == 0 ? 1 + r(2) : 0; v > 0; --v)
      f.vlans.push_back(static_cast<uint16_t>(r(8) << 13 | r(3) * 100));
    f.tos = static_cast<uint8_t>(r(256));
    f.src_port = port();
    f.dst_port = port();
    Bytes b;
    switch (r(9)) {
      case 0:
      case 1:
      case 2: {  // IPv4
        static const uint8_t protos[] = {6, 17, 132, 1, 47};
        f.proto = protos[r(5)];
        f.src_ip = ip4();
        f.dst_ip = ip4();
        f.icmp_type = static_cast<uint8_t>(r(3) * 4);
        f.icmp_code = static_cast<uint8_t>(r(2));
        b = build(f);
        if (r(8) == 0) {
          size_t ip = 14 + 4 * f.vlans.size();
          b[ip + 6] = 0x00;
          b[ip + 7] = 0x10;
        }  // non-first fragment
        break;
      }
      case 3:
      case 4: {  // IPv6, ND included
        static const uint8_t protos[] = {6, 17, 58, 58};
        f.ipv6 = true;
        f.proto = protos[r(4)];
        f.src_ip = ip6();
        f.dst_ip = ip6();
        f.icmp_type = static_cast<uint8_t>(r(2) ? 135 + r(2) : 128);
        if (f.proto == 58 && f.icmp_type >= 135) {
          in6_addr t{};
          inet_pton(AF_INET6, ip6().c_str(), &t);
          f.payload.assign(reinterpret_cast<char*>(t.s6_addr), 16);
          Bytes opt;
          opt.push_back(f.icmp_type == 135 ? 1 : 2);
          opt.push_back(1);
          put_mac(opt, mac());
          f.payload.append(opt.begin(), opt.end());
        }
        b = build(f);
        break;
      }
      case 5: {  // ARP
        put_mac(b, "ff:ff:ff:ff:ff:ff");
        put_mac(b, f.src_mac);
        put16(b, 0x0806);
        put16(b, 1);
        put16(b, 0x0800);
        b.push_back(6);
        b.push_back(4);
        put16(b, static_cast<uint16_t>(1 + r(2)));
        put_mac(b, mac());
        put32(b, 0x0a000001 + static_cast<uint32_t>(r(3)));
        put_mac(b, mac());
        put32(b, 0x0a000001 + static_cast<uint32_t>(r(3)));
        while (b.size() < 60) b.push_back(0);
        break;
      }
      case 6: {  // MPLS / PBB
        f.eth_type = r(2) ? 0x8847 : 0x88e7;
        b = build(f);
        size_t at = 14 + 4 * f.vlans.size();
        uint32_t lse = static_cast<uint32_t>(r(4) * 1000 << 12 | r(8) << 9 | r(2) << 8 | 64);
        b[at] = lse >> 24;
        b[at + 1] = lse >> 16;
        b[at + 2] = lse >> 8;
        b[at + 3] = lse;
        break;
      }
      default: {  // truncated anything
        f.proto = 6;
        f.ipv6 = r(2);
        f.src_ip = f.ipv6 ? ip6() : ip4();
        f.dst_ip = f.ipv6 ? ip6() : ip4();
        b = build(f);
        b.resize(10 + r(b.size() - 10));
        break;
      }
    }
    return b;
  }
};

// Random rules whose values are taken from the packets, so that many of them match.
struct RuleGen {
  Gen& g;
  std::vector<Packet*>& pkts;
  bool ranges = true;     // range terms allowed
  bool odd_masks = true;  // non-prefix masks allowed
  unsigned max_terms = 3;
  std::vector<MatchField> fields;  // the fields rules draw from

  HeaderMatch rule() {
    HeaderMatch m;
    Packet& p = *pkts[g.r(pkts.size())];
    bool used[static_cast<size_t>(MatchField::kCount)] = {};
    for (uint64_t nf = g.r(4); nf > 0; --nf) {
      auto f = fields[g.r(fields.size())];
      if (f == MatchField::TUNNEL_ID && g.r(4)) continue;
      if (used[static_cast<size_t>(f)]) continue;
      used[static_cast<size_t>(f)] = true;
      const unsigned w = openbox::field_info(f).width;
      const u128 all = w >= 128 ? ~u128(0) : (u128(1) << w) - 1;
      FieldMatch fm;
      fm.field = f;
      for (uint64_t t = 1 + g.r(max_terms); t > 0; --t) {
        u128 v;
        p.parsed = false;
        if (!obi::blocks::extract_field(p, f, v) || g.r(5) == 0) v = (u128(g.rng()) << 64 | g.rng()) & all;
        MatchTerm term;
        switch (g.r(4)) {
          case 0:
            term.mask = all;
            term.value = v;
            break;
          case 1: {  // prefix
            unsigned len = static_cast<unsigned>(g.r(w + 1));
            term.mask = len == 0 ? 0 : all & ~((u128(1) << (w - len)) - 1);
            if (len == w) term.mask = all;
            term.value = v & term.mask;
            break;
          }
          case 2:
            if (odd_masks) {
              term.mask = (u128(g.rng()) << 64 | g.rng()) & all;
              if (w > 16 && !ranges) term.mask |= all & ~((u128(1) << (w / 2)) - 1);
              term.value = v & term.mask;
              break;
            }
            [[fallthrough]];
          default:
            if (!ranges) {
              term.mask = all;
              term.value = v;
              break;
            }
            term.kind = MatchTerm::Kind::kRange;
            u128 lo_d = g.r(w > 16 ? 200 : 20), hi_d = g.r(w > 16 ? 200 : 20);
            term.min = v >= lo_d ? v - lo_d : 0;
            term.max = all - v >= hi_d ? v + hi_d : all;
            break;
        }
        fm.terms.push_back(term);
      }
      m.fields.push_back(std::move(fm));
    }
    return m;
  }
  std::vector<HeaderMatch> rules(size_t n) {
    std::vector<HeaderMatch> v;
    while (v.size() < n) v.push_back(rule());
    return v;
  }
};

struct Packets {
  PacketPool pool{4096};
  std::vector<Packet*> pkts;
  explicit Packets(Gen& g, size_t n) {
    while (pkts.size() < n) pkts.push_back(make_packet(pool, g.packet()));
  }
};

using F = MatchField;
// Field families: a rule set over all 38 fields at once makes rte_acl exceed its trie
// limit (tested apart); each family covers its layers' fields, absent layers included.
const std::vector<std::vector<MatchField>> kFamilies = {
    {F::ETH_DST, F::ETH_SRC, F::ETH_TYPE, F::VLAN_VID, F::VLAN_PCP, F::MPLS_LABEL, F::MPLS_TC, F::MPLS_BOS, F::PBB_ISID,
     F::PBB_UCA, F::TUNNEL_ID},
    {F::ETH_TYPE, F::ARP_OP, F::ARP_SPA, F::ARP_TPA, F::ARP_SHA, F::ARP_THA, F::VLAN_VID},
    {F::ETH_TYPE, F::IP_PROTO, F::IP_DSCP, F::IP_ECN, F::IPV4_SRC, F::IPV4_DST, F::TCP_SRC, F::TCP_DST, F::UDP_SRC,
     F::UDP_DST, F::SCTP_SRC, F::SCTP_DST, F::ICMPV4_TYPE, F::ICMPV4_CODE},
    {F::IPV6_SRC, F::IPV6_DST, F::IPV6_FLABEL, F::IPV6_EXTHDR, F::ICMPV6_TYPE, F::ICMPV6_CODE, F::IP_PROTO, F::TCP_DST,
     F::UDP_SRC},
    {F::IPV6_ND_TARGET, F::IPV6_ND_SLL, F::IPV6_ND_TLL, F::ICMPV6_TYPE, F::ICMPV4_TYPE, F::IP_DSCP}};

std::vector<MatchField> all_fields() {
  std::vector<MatchField> v;
  for (size_t f = 0; f < static_cast<size_t>(MatchField::kCount); ++f) v.push_back(static_cast<MatchField>(f));
  return v;
}

}  // namespace

TEST(MultiClassifier, ClassBenchFw4560MatchesBitVectorAndFirstMatch) {
  auto frames = obi::classbench::pcap_frames(data_dir() + "/fw-4560.trace.pcap");
  auto expected = obi::classbench::firstmatch(data_dir() + "/fw-4560.trace.firstmatch");
  ASSERT_EQ(frames.size(), expected.size());
  PacketPool pool(static_cast<uint32_t>(frames.size()));
  std::vector<Packet*> pkts;
  for (auto& f : frames) pkts.push_back(pool.alloc_copy(f.data(), static_cast<uint32_t>(f.size())));
  auto rules = fw_rules();
  MultiClassifier mc;
  mc.compile({rules});
  ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
  EXPECT_STREQ(mc.engine(), "acl");
  EXPECT_GE(mc.stats().acl_rules, rules.size());
  expect_agree(mc, {rules}, pkts);
  int32_t out[kBatchSize];
  size_t wrong = 0;
  for (size_t i = 0; i < pkts.size(); i += kBatchSize) {
    uint32_t n = static_cast<uint32_t>(std::min<size_t>(kBatchSize, pkts.size() - i));
    mc.classify_batch(&pkts[i], n, out);
    for (uint32_t j = 0; j < n; ++j) wrong += out[j] != expected[i + j];
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(MultiClassifier, RandomRulesOverEveryFieldKind) {
  struct Variant {
    bool ranges, odd_masks;
    unsigned terms;
  };
  const Variant variants[] = {{true, false, 3}, {false, true, 3}, {true, true, 1}, {true, false, 1}};
  unsigned expressible = 0, live = 0;
  for (uint64_t seed = 1; seed <= 2 * kFamilies.size() * 4; ++seed) {
    const Variant& v = variants[seed % 4];
    Gen g(seed);
    Packets P(g, 1500);
    RuleGen rg{g, P.pkts, v.ranges, v.odd_masks, v.terms, kFamilies[(seed / 4) % kFamilies.size()]};
    auto rules = rg.rules(300);
    MultiClassifier mc;
    mc.compile({rules});
    bool ready = mc.wait_ready(kWait);
    // Non-prefix masks on fields that also carry ranges may exceed the expansion bound, and
    // rte_acl itself gives up on some random sets (more than 8 tries): then the bit
    // vector keeps answering and says why. Most sets must go live on the ACL.
    if (!ready) {
      EXPECT_FALSE(mc.engine_reason().empty());
    }
    if (!(v.ranges && v.odd_masks)) {
      ++expressible;
      live += ready;
    }
    SCOPED_TRACE("seed " + std::to_string(seed) + " engine " + mc.engine() + " " + mc.engine_reason());
    expect_agree(mc, {rules}, P.pkts);
  }
  std::printf("random sets live on the ACL: %u of %u\n", live, expressible);
  EXPECT_GE(live * 4, expressible * 3);
}

TEST(MultiClassifier, EveryFieldAtOnceAgreesWhateverAnswers) {
  for (uint64_t seed = 100; seed < 104; ++seed) {
    Gen g(seed);
    Packets P(g, 1500);
    RuleGen rg{g, P.pkts, seed % 2 == 0, seed % 2 == 1, 2, all_fields()};
    auto rules = rg.rules(200);
    MultiClassifier mc;
    mc.compile({rules});
    if (!mc.wait_ready(kWait)) {
      EXPECT_FALSE(mc.engine_reason().empty());
    }
    SCOPED_TRACE(std::string("engine ") + mc.engine() + " " + mc.engine_reason());
    expect_agree(mc, {rules}, P.pkts);
  }
}

TEST(MultiClassifier, SeveralSetsOfDifferentSizesIncludingEmpty) {
  // ClassBench slices (one category each) and small random sets over IPv4 fields
  auto fw = fw_rules();
  Gen g(42);
  Packets P(g, 2000);
  auto frames = obi::classbench::pcap_frames(data_dir() + "/fw-4560.trace.pcap");
  frames.resize(2000);
  PacketPool pool(static_cast<uint32_t>(frames.size()));
  std::vector<Packet*> pkts = P.pkts;
  for (auto& f : frames) pkts.push_back(pool.alloc_copy(f.data(), static_cast<uint32_t>(f.size())));
  RuleGen rg{g, P.pkts, true, false, 2, kFamilies[2]};
  size_t at = 0;
  auto slice = [&](size_t n) {
    std::vector<HeaderMatch> v(fw.begin() + at, fw.begin() + at + n);
    at = (at + 977) % (fw.size() - 1000);
    return v;
  };
  std::vector<std::vector<std::vector<HeaderMatch>>> cases;
  cases.push_back({slice(50), {}, slice(900), slice(7), slice(120)});
  cases.push_back({rg.rules(20), {}, rg.rules(30), rg.rules(5)});
  cases.push_back({});
  for (int k = 0; k < 16; ++k) cases.back().push_back(slice(40 + 10 * k));
  cases.push_back({{}, slice(300), {}});
  for (const auto& sets : cases) {
    MultiClassifier mc;
    mc.compile(sets);
    ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
    EXPECT_STREQ(mc.engine(), "acl");
    expect_agree(mc, sets, pkts);
  }
}

TEST(MultiClassifier, FusedFirewallSetsAgreeWithSeparateLookups) {
  auto rules = fw_rules();
  std::vector<HeaderMatch> a(rules.begin(), rules.begin() + rules.size() / 2),
      b(rules.begin() + rules.size() / 2, rules.end());
  auto frames = obi::classbench::pcap_frames(data_dir() + "/fw-4560.trace.pcap");
  frames.resize(8000);
  PacketPool pool(static_cast<uint32_t>(frames.size()));
  std::vector<Packet*> pkts;
  for (auto& f : frames) pkts.push_back(pool.alloc_copy(f.data(), static_cast<uint32_t>(f.size())));
  MultiClassifier mc;
  mc.compile({a, b, rules});
  ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
  expect_agree(mc, {a, b, rules}, pkts);
}

TEST(MultiClassifier, RecompileWhileBuildingServesTheNewRules) {
  Gen g(7);
  Packets P(g, 1000);
  RuleGen rg{g, P.pkts, true, false, 2, kFamilies[2]};
  auto small = rg.rules(100);
  MultiClassifier mc;
  for (int round = 0; round < 3; ++round) {
    mc.compile({fw_rules()});
    EXPECT_STREQ(mc.engine(), "bitvector");  // the ACL build of 4560 rules takes far longer than this
    EXPECT_EQ(mc.rule_count(0), 4560u);
    mc.compile({small, small});
    EXPECT_EQ(mc.set_count(), 2u);
    EXPECT_EQ(mc.rule_count(0), 100u);
    expect_agree(mc, {small, small}, P.pkts);  // whatever answers, answers right
  }
  ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
  EXPECT_STREQ(mc.engine(), "acl");
  expect_agree(mc, {small, small}, P.pkts);
}

TEST(MultiClassifier, DestroyWhileBuilding) {
  auto rules = fw_rules();
  for (int i = 0; i < 3; ++i) {
    auto mc = std::make_unique<MultiClassifier>();
    mc->compile({rules});
    mc.reset();  // the build finds itself cancelled and drops its result
  }
  Gen g(9);
  Packets P(g, 500);
  RuleGen rg{g, P.pkts, true, false, 2, kFamilies[2]};
  auto set = rg.rules(50);
  MultiClassifier mc;
  mc.compile({set});
  ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
  expect_agree(mc, {set}, P.pkts);
}

TEST(MultiClassifier, UnexpressibleSetStaysOnBitVectorWithAReason) {
  // a range and a mask with many holes on the same 16-bit field
  HeaderMatch r1 = openbox::parse_header_match({{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", "[100:200]"}});
  HeaderMatch r2 = openbox::parse_header_match({{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", "0x5555%0x5555"}});
  MultiClassifier mc;
  mc.compile({{r1, r2}});
  EXPECT_FALSE(mc.wait_ready(kWait));
  EXPECT_STREQ(mc.engine(), "bitvector");
  EXPECT_NE(mc.engine_reason().find("mask"), std::string::npos) << mc.engine_reason();
  PacketPool pool(4);
  std::vector<Packet*> pkts{make_packet(pool, tcp4("10.0.0.1", "10.0.0.2", 1, 150)),
                            make_packet(pool, tcp4("10.0.0.1", "10.0.0.2", 1, 0x5555)),
                            make_packet(pool, tcp4("10.0.0.1", "10.0.0.2", 1, 0x1111))};
  int32_t out[3];
  mc.classify_batch(pkts.data(), 3, out);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 1);
  EXPECT_EQ(out[2], -1);
}

TEST(MultiClassifier, ABuildLeftForLaterStartsOnlyWhenStarted) {
  MultiClassifier mc;
  mc.compile({{openbox::parse_header_match({{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 80}})}},
             MultiClassifier::Build::kOnStart);
  EXPECT_FALSE(mc.wait_ready(std::chrono::milliseconds(200)));  // far longer than this build takes
  EXPECT_STREQ(mc.engine(), "bitvector");
  EXPECT_EQ(mc.engine_reason(), "not started");
  mc.start_build();
  ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
  EXPECT_STREQ(mc.engine(), "acl");
  mc.start_build();  // nothing pending any more: no second build
  EXPECT_STREQ(mc.engine(), "acl");
  EXPECT_EQ(mc.engine_reason(), "");
}

TEST(MultiClassifier, EnvironmentTurnsTheAclOff) {
  setenv("OBI_CLASSIFIER", "bitvector", 1);
  MultiClassifier mc;
  mc.compile({{openbox::parse_header_match({{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 80}})}});
  unsetenv("OBI_CLASSIFIER");
  EXPECT_FALSE(mc.wait_ready(std::chrono::milliseconds(100)));
  EXPECT_STREQ(mc.engine(), "bitvector");
  EXPECT_NE(mc.engine_reason().find("OBI_CLASSIFIER"), std::string::npos);
}

TEST(MultiClassifier, NoSetsAndEmptySets) {
  MultiClassifier none;
  EXPECT_EQ(none.set_count(), 0u);
  MultiClassifier empty;
  empty.compile(std::vector<std::vector<openbox::HeaderMatch>>{{}, {}});
  EXPECT_FALSE(empty.wait_ready(std::chrono::milliseconds(100)));
  PacketPool pool(2);
  Packet* p = make_packet(pool, tcp4("10.0.0.1", "10.0.0.2", 1, 80));
  int32_t out[2] = {5, 5};
  empty.classify_batch(&p, 1, out);
  EXPECT_EQ(out[0], -1);
  EXPECT_EQ(out[1], -1);
}

// --- flow caches ---------------------------------------------------------------------

// Small random rule sets get caches only with an explicit size (by default a lookup needs
// FlowCache::kMinAclRules rte_acl rules).
class MultiClassifierFlowCache : public ::testing::Test {
 protected:
  void SetUp() override { setenv("OBI_FLOW_CACHE", "65536", 1); }
  void TearDown() override { unsetenv("OBI_FLOW_CACHE"); }
};

TEST_F(MultiClassifierFlowCache, EveryFieldFamilyIncludingIpv6AnswersExactly) {
  unsigned live = 0, with_hits = 0;
  for (uint64_t seed = 200; seed < 200 + 2 * kFamilies.size(); ++seed) {
    Gen g(seed);
    Packets P(g, 1500);
    RuleGen rg{g, P.pkts, true, false, 2, kFamilies[seed % kFamilies.size()]};
    auto rules = rg.rules(300);
    MultiClassifier mc(2);
    mc.compile({rules});
    if (!mc.wait_ready(kWait)) continue;  // no ACL, no cache (the bit vector answers)
    ++live;
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_EQ(mc.cache_stats().entries, obi::blocks::FlowCache::kDefaultEntries);
    const uint64_t hits = expect_agree_cached(mc, {rules}, P.pkts, seed % 2);
    with_hits += hits > 0;
    // every flow hash equal: all packets contend for one bucket of two entries
    expect_agree_cached(mc, {rules}, P.pkts, 1 - seed % 2, 2, 0x5eed);
  }
  EXPECT_GE(live * 4, 2 * kFamilies.size() * 3);
  EXPECT_EQ(with_hits, live);
}

TEST_F(MultiClassifierFlowCache, EveryFieldAtOnce) {
  for (uint64_t seed = 300; seed < 303; ++seed) {
    Gen g(seed);
    Packets P(g, 1500);
    RuleGen rg{g, P.pkts, false, false, 1, all_fields()};
    auto rules = rg.rules(60);
    MultiClassifier mc;
    mc.compile({rules});
    if (!mc.wait_ready(kWait)) continue;
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_GT(expect_agree_cached(mc, {rules}, P.pkts), 0u);
    expect_agree_cached(mc, {rules}, P.pkts, 0, 2, 1);
  }
}

TEST_F(MultiClassifierFlowCache, FusedSetsFw4560) {
  auto rules = fw_rules();
  std::vector<HeaderMatch> a(rules.begin(), rules.begin() + rules.size() / 2),
      b(rules.begin() + rules.size() / 2, rules.end());
  auto frames = obi::classbench::pcap_frames(data_dir() + "/fw-4560.trace.pcap");
  frames.resize(500);  // 298 distinct flows: ten passes hit above the bypass bar
  PacketPool pool(static_cast<uint32_t>(frames.size()));
  std::vector<Packet*> pkts;
  for (auto& f : frames) {
    pkts.push_back(pool.alloc_copy(f.data(), static_cast<uint32_t>(f.size())));
    pkts.back()->flow_hash = flow_hash(*pkts.back());
  }
  MultiClassifier mc;
  mc.compile({a, b, rules});
  ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
  EXPECT_GT(expect_agree_cached(mc, {a, b, rules}, pkts, 0, 10), 8 * pkts.size());
  EXPECT_EQ(mc.cache_stats().bypassed, 0u);
}

TEST_F(MultiClassifierFlowCache, Fw4560TraceFirstMatchAndCounters) {
  auto frames = obi::classbench::pcap_frames(data_dir() + "/fw-4560.trace.pcap");
  auto expected = obi::classbench::firstmatch(data_dir() + "/fw-4560.trace.firstmatch");
  ASSERT_EQ(frames.size(), expected.size());
  PacketPool pool(static_cast<uint32_t>(frames.size()));
  std::vector<Packet*> pkts;
  for (auto& f : frames) {
    pkts.push_back(pool.alloc_copy(f.data(), static_cast<uint32_t>(f.size())));
    pkts.back()->flow_hash = flow_hash(*pkts.back());
  }
  MultiClassifier mc;
  mc.compile({fw_rules()});
  ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
  // each batch 8 times: the first looks up and fills, the others are answered by the cache
  // (7/8 hits or more: never bypassed), and every answer is the reference first match
  int32_t out[kBatchSize];
  size_t wrong = 0;
  for (size_t i = 0; i < pkts.size(); i += kBatchSize) {
    uint32_t n = static_cast<uint32_t>(std::min<size_t>(kBatchSize, pkts.size() - i));
    for (int rep = 0; rep < 8; ++rep) {
      for (uint32_t j = 0; j < n; ++j) pkts[i + j]->parsed = false;
      mc.classify_batch(&pkts[i], n, out, 0);
      for (uint32_t j = 0; j < n; ++j) wrong += out[j] != expected[i + j];
    }
  }
  EXPECT_EQ(wrong, 0u);
  auto s = mc.cache_stats();
  EXPECT_EQ(s.hits + s.misses, 8 * pkts.size());
  EXPECT_EQ(s.bypassed, 0u);
  EXPECT_GE(s.hits, 7 * pkts.size());
  EXPECT_GT(s.misses, 0u);
}

TEST_F(MultiClassifierFlowCache, WorkersHaveTheirOwnCaches) {
  MultiClassifier mc(2);
  mc.compile({{openbox::parse_header_match({{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", "[1000:1099]"}}),
               openbox::parse_header_match({{"ETH_TYPE", "0x0800"}})}});
  ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
  EXPECT_EQ(mc.cache_stats().entries, 65536u);
  PacketPool pool(256);
  std::vector<Packet*> pkts;
  for (uint16_t i = 0; i < 200; ++i)
    pkts.push_back(make_packet(pool, tcp4("10.0.0.1", "10.0.0.2", 5000 + i, 1000 + i)));
  for (unsigned w : {0u, 0u, 1u}) {
    int32_t out[kBatchSize];
    for (size_t i = 0; i < pkts.size(); i += kBatchSize) {
      uint32_t n = static_cast<uint32_t>(std::min<size_t>(kBatchSize, pkts.size() - i));
      mc.classify_batch(&pkts[i], n, out, w);
      for (uint32_t j = 0; j < n; ++j) EXPECT_EQ(out[j], i + j < 100 ? 0 : 1);
    }
  }
  auto s = mc.cache_stats();
  EXPECT_EQ(s.misses, 400u);  // each worker's first pass
  EXPECT_EQ(s.hits, 200u);    // worker 0's second
  EXPECT_EQ(s.bypassed, 0u);
}

TEST_F(MultiClassifierFlowCache, RecompileStartsEmpty) {
  Gen g(11);
  Packets P(g, 1000);
  RuleGen rg{g, P.pkts, true, false, 2, kFamilies[2]};
  auto first = rg.rules(100), second = rg.rules(100);
  MultiClassifier mc;
  mc.compile({first});
  ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
  EXPECT_GT(expect_agree_cached(mc, {first}, P.pkts), 0u);
  mc.compile({second});
  ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
  auto s = mc.cache_stats();
  EXPECT_EQ(s.hits + s.misses + s.bypassed, 0u);
  expect_agree_cached(mc, {second}, P.pkts);  // no answer of the first rules survives
}

TEST_F(MultiClassifierFlowCache, NewFlowsOnlyBypassTheCache) {
  MultiClassifier mc;
  mc.compile({fw_rules()});
  ASSERT_TRUE(mc.wait_ready(kWait)) << mc.engine_reason();
  PacketPool pool(64);
  const uint32_t total = 8 * obi::blocks::FlowCache::kEpoch;
  int32_t out[kBatchSize];
  obi::blocks::RuleClassifier ref;
  ref.compile(fw_rules());
  size_t wrong = 0;
  for (uint32_t i = 0; i < total; i += kBatchSize) {
    Packet* b[kBatchSize];
    for (uint32_t j = 0; j < kBatchSize; ++j) {
      const uint32_t f = i + j;  // every packet a new 5-tuple
      b[j] = make_packet(pool, tcp4("10." + std::to_string(f >> 16) + "." + std::to_string((f >> 8) & 255) + "." +
                                        std::to_string(f & 255),
                                    "192.168.0.1", static_cast<uint16_t>(1024 + (f & 1023)), 80));
    }
    mc.classify_batch(b, kBatchSize, out, 0);
    for (uint32_t j = 0; j < kBatchSize; ++j) {
      b[j]->parsed = false;
      wrong += out[j] != ref.classify(*b[j]);
      pool.free(b[j]);
    }
  }
  EXPECT_EQ(wrong, 0u);
  auto s = mc.cache_stats();
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.hits + s.misses + s.bypassed, total);
  EXPECT_GT(s.bypassed, total / 2);  // after the first epoch, mostly skipped
}

TEST_F(MultiClassifierFlowCache, ByDefaultOnlyLargeLookupsGetCaches) {
  unsetenv("OBI_FLOW_CACHE");
  MultiClassifier small, large;
  small.compile({{openbox::parse_header_match({{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 80}})}});
  large.compile({fw_rules()});
  ASSERT_TRUE(small.wait_ready(kWait)) << small.engine_reason();
  ASSERT_TRUE(large.wait_ready(kWait)) << large.engine_reason();
  EXPECT_EQ(small.cache_stats().entries, 0u);
  EXPECT_EQ(large.cache_stats().entries, obi::blocks::FlowCache::kDefaultEntries);
}

TEST_F(MultiClassifierFlowCache, NoCacheWithoutAcl) {
  setenv("OBI_CLASSIFIER", "bitvector", 1);
  MultiClassifier mc(2);
  auto rule = openbox::parse_header_match({{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 80}});
  mc.compile({{rule}});
  unsetenv("OBI_CLASSIFIER");
  PacketPool pool(2);
  Packet* p = make_packet(pool, tcp4("10.0.0.1", "10.0.0.2", 1, 80));
  int32_t out[1] = {5};
  mc.classify_batch(&p, 1, out, 1);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(mc.cache_stats().entries, 0u);
  EXPECT_EQ(mc.cache_stats().hits + mc.cache_stats().misses, 0u);
}
