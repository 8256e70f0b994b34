// FlowCache: four ways per bucket with the oldest entry evicted, exact keys (every key byte
// and the layer tag), several results per entry, the adaptive bypass and its counters;
// and HeaderClassifier's flow_cache read handle over the fw-4560 trace on two workers.
#include <gtest/gtest.h>

#include <cstdlib>

#include "classbench.hh"
#include "classify/HeaderClassifier.hh"
#include "engine/pool.hh"
#include "engine/testing.hh"
#include "lib/flow_cache.hh"

using namespace obi;
using namespace obi::testing;
using nlohmann::json;
using obi::blocks::FlowCache;

namespace {

struct Key {
  alignas(16) uint8_t b[48] = {};
  explicit Key(uint8_t first, uint8_t last = 0) {
    b[0] = first;
    b[47] = last;
  }
};

std::string data_dir() {
  if (const char* d = std::getenv("OPENBOX_DATA")) return d;
  return obi::classbench::data_dir();
}

}  // namespace

TEST(FlowCache, SizeIsAPowerOfTwoOfFourWayBuckets) {
  EXPECT_EQ(FlowCache(16, 1, 1000).entries(), 1024u);
  EXPECT_EQ(FlowCache(16, 1, 8192).entries(), 8192u);
  EXPECT_EQ(FlowCache(16, 1, 0).entries(), 4u);
  EXPECT_EQ(FlowCache(16, 1, 3).entries(), 4u);
  EXPECT_EQ(FlowCache(16, 1, 5).entries(), 8u);
}

TEST(FlowCache, CollidingFlowsShareABucketAndTheOldestLeaves) {
  FlowCache c(16, 1, 64);
  const uint32_t h = 0x1234;  // one bucket, full hash equal: only the key tells them apart
  ASSERT_EQ(FlowCache::kWays, 4u);
  Key k1(1), k2(2), k3(3), k4(4), k5(5);
  const int32_t r1 = 10, r2 = 20, r3 = 30, r4 = 40, r5 = 50;
  EXPECT_EQ(c.find(h, k1.b, 0), nullptr);
  c.insert(h, k1.b, 0, &r1);
  c.insert(h, k2.b, 0, &r2);
  c.insert(h, k4.b, 0, &r4);
  c.insert(h, k5.b, 0, &r5);
  for (auto [k, r] : {std::pair{&k1, 10}, {&k2, 20}, {&k4, 40}, {&k5, 50}}) {
    ASSERT_NE(c.find(h, k->b, 0), nullptr);
    EXPECT_EQ(*c.find(h, k->b, 0), r);
  }
  c.insert(h, k3.b, 0, &r3);  // k1 was inserted first: it leaves, the others stay
  EXPECT_EQ(c.find(h, k1.b, 0), nullptr);
  EXPECT_EQ(*c.find(h, k2.b, 0), 20);
  EXPECT_EQ(*c.find(h, k4.b, 0), 40);
  EXPECT_EQ(*c.find(h, k5.b, 0), 50);
  EXPECT_EQ(*c.find(h, k3.b, 0), 30);
  // hashes that share the bucket index but differ elsewhere: no hit on the other's entry
  const uint32_t h2 = h + (1u << 20);
  EXPECT_EQ(c.find(h2, k3.b, 0), nullptr);
  // the same key inserted again (two packets of one new flow in a batch) keeps the other ways
  c.insert(h, k3.b, 0, &r3);
  EXPECT_EQ(*c.find(h, k2.b, 0), 20);
  EXPECT_EQ(*c.find(h, k4.b, 0), 40);
  EXPECT_EQ(*c.find(h, k5.b, 0), 50);
  EXPECT_EQ(*c.find(h, k3.b, 0), 30);
}

TEST(FlowCache, EveryKeyByteAndTheLayerTagCount) {
  FlowCache c(48, 1, 64);
  const uint32_t h = 7;
  Key a(5, 1), b(5, 2);  // differ in the last byte only
  const int32_t ra = 1, rb = 2;
  c.insert(h, a.b, 0x3, &ra);
  EXPECT_EQ(c.find(h, b.b, 0x3), nullptr);
  EXPECT_EQ(c.find(h, a.b, 0x1), nullptr);  // same key, other layers
  ASSERT_NE(c.find(h, a.b, 0x3), nullptr);
  c.insert(h, b.b, 0x3, &rb);
  EXPECT_EQ(*c.find(h, a.b, 0x3), 1);
  EXPECT_EQ(*c.find(h, b.b, 0x3), 2);
}

TEST(FlowCache, SeveralResultsPerEntry) {
  FlowCache c(16, 5, 16);
  Key k(9);
  const int32_t r[5] = {3, -1, 4000, 0, 65533};
  c.insert(99, k.b, 0, r);
  const int32_t* got = c.find(99, k.b, 0);
  ASSERT_NE(got, nullptr);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(got[i], r[i]);
}

TEST(FlowCache, LowHitRateBypassesForAWhileThenProbesAgain) {
  FlowCache c(16, 1, 64);
  const uint32_t e = FlowCache::kEpoch;
  ASSERT_TRUE(c.active(32));
  c.account(e - e / 16, e / 16);  // 15/16 hits: stays
  EXPECT_TRUE(c.active(32));
  c.account(e * 7 / 8, e / 8);  // exactly the bar: stays
  EXPECT_TRUE(c.active(32));
  c.account(e * 3 / 4, e / 4);  // 3/4 hits: misses cost more than the hits save, bypass
  uint64_t skipped = 0;
  while (!c.active(32)) {
    skipped += 32;
    ASSERT_LE(skipped, uint64_t(FlowCache::kSkipPackets) + 32);
  }
  EXPECT_EQ(skipped, FlowCache::kSkipPackets);
  FlowCache::Stats s = c.stats();
  EXPECT_EQ(s.bypassed, FlowCache::kSkipPackets);
  EXPECT_EQ(s.hits, e - e / 16 + e * 7 / 8 + e * 3 / 4);
  EXPECT_EQ(s.misses, e / 16 + e / 8 + e / 4);
}

// The element on two workers over the start of the trace, 20 times on worker 0 and once
// on worker 1: outputs agree with the reference first match on every pass, each worker's
// cache fills on its own, and the handle adds up.
TEST(FlowCache, HeaderClassifierHandleOverTheFw4560Trace) {
  auto frames = obi::classbench::pcap_frames(data_dir() + "/fw-4560.trace.pcap");
  auto expected = obi::classbench::firstmatch(data_dir() + "/fw-4560.trace.firstmatch");
  ASSERT_EQ(frames.size(), expected.size());
  frames.resize(256);  // 206 distinct flows: worker 0 hits far above the bypass bar
  std::vector<Bytes> bytes;
  for (auto& f : frames) bytes.emplace_back(f.begin(), f.end());
  ElementHarness h("HeaderClassifier",
                   json{{"match", obi::classbench::classbench_rules(data_dir() + "/fw-4560.classbench")}}, "fw", 2,
                   1024);
  h.element().activate();  // the rte_acl build starts when the block's graph goes live
  ASSERT_EQ(h.element().settle(std::chrono::seconds(60)), "acl");
  json c0 = h.read("flow_cache");
  EXPECT_EQ(c0["entries"], FlowCache::kDefaultEntries);
  EXPECT_EQ(c0["hits"], 0);
  std::map<int, size_t> want;
  for (size_t i = 0; i < bytes.size(); ++i) ++want[expected[i]];
  uint64_t passes = 0;
  for (int pass = 0; pass < 21; ++pass) {
    h.set_worker(pass < 20 ? 0 : 1);
    Result r = h.push(bytes);
    ++passes;
    for (auto& [rule, n] : want) {
      if (rule < 0) {
        EXPECT_EQ(r.dropped, n);
      } else {
        EXPECT_EQ(r.out[rule].size(), n) << "rule " << rule;
      }
    }
  }
  json c = h.read("flow_cache");
  const uint64_t hits = c["hits"], misses = c["misses"], bypassed = c["bypassed"];
  EXPECT_EQ(hits + misses + bypassed, passes * bytes.size());
  EXPECT_EQ(bypassed, 0u);
  // worker 0 misses each flow once (at most once more for the odd bucket conflict);
  // worker 1 starts empty, so its distinct flows miss again
  EXPECT_GE(misses, 2 * 206u);
  EXPECT_GT(hits, 18 * bytes.size());
}

TEST(FlowCache, EnvironmentTurnsTheCacheOff) {
  setenv("OBI_FLOW_CACHE", "off", 1);
  ElementHarness h("HeaderClassifier", json{{"match", json::array({json{{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}}})}});
  unsetenv("OBI_FLOW_CACHE");
  h.element().activate();
  ASSERT_EQ(h.element().settle(std::chrono::seconds(60)), "acl");
  Result r = h.push({tcp4("10.0.0.1", "10.0.0.2", 1, 80), tcp4("10.0.0.1", "10.0.0.2", 1, 80)});
  EXPECT_EQ(r.out[0].size(), 2u);
  json c = h.read("flow_cache");
  EXPECT_EQ(c["entries"], 0);
  EXPECT_EQ(c["hits"], 0);
  EXPECT_EQ(c["misses"], 0);
}
