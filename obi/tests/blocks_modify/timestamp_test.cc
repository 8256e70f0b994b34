// SetTimestamp and SetTimestampDelta on crafted frames: stamps, the first timestamp, the
// three delta modes, the statistics handles, the metadata value and the reset.
#include <gtest/gtest.h>

#include "checks.hh"
#include "modify/SetTimestamp.hh"
#include "pipeline.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

namespace {

constexpr uint64_t kSec = 1000000000ull;

Packet* stamped(PacketPool& pool, uint64_t ts, uint64_t first = 0) {
  Packet* p = make_packet(pool, udp4("10.0.0.1", "10.0.0.2", 1, 2, "x"));
  p->timestamp_ns = ts;
  p->first_timestamp_ns = first;
  return p;
}

}  // namespace

TEST(SetTimestamp, ParsesAndFormatsEpochSeconds) {
  EXPECT_EQ(parse_epoch_seconds("1700000000.25"), 1700000000 * kSec + 250000000);
  EXPECT_EQ(parse_epoch_seconds("12"), 12 * kSec);
  EXPECT_EQ(parse_epoch_seconds("0.000000001"), 1u);
  for (const char* bad : {"", ".5", "5.", "-1", "1e9", "1.0000000001", "abc", "1.2.3", "999999999999"})
    EXPECT_FALSE(parse_epoch_seconds(bad).has_value()) << bad;
  EXPECT_EQ(format_epoch_seconds(1700000000 * kSec + 250000000), "1700000000.250000000");
}

TEST(SetTimestamp, StampsTheCurrentTimeAndKeepsTheFirstTimestamp) {
  ElementHarness h("SetTimestamp", json::object());
  h.set_now(5 * kSec);
  h.ctx().wall_offset_ns = 1000 * kSec;
  Batch b;
  b.add(stamped(h.pool(), 700 * kSec));              // arrival time kept as the first timestamp
  b.add(stamped(h.pool(), 0));                       // none: the stamp is its first timestamp
  b.add(stamped(h.pool(), 800 * kSec, 600 * kSec));  // an earlier SetTimestamp kept 600
  Result r = h.push_batch(b);
  ASSERT_EQ(r.out[0].size(), 3u);
  for (const Packet& p : r.meta[0]) EXPECT_EQ(p.timestamp_ns, 1005 * kSec);
  EXPECT_EQ(r.meta[0][0].first_timestamp_ns, 700 * kSec);
  EXPECT_EQ(r.meta[0][1].first_timestamp_ns, 1005 * kSec);
  EXPECT_EQ(r.meta[0][2].first_timestamp_ns, 600 * kSec);
  EXPECT_EQ(r.out[0][0], udp4("10.0.0.1", "10.0.0.2", 1, 2, "x"));  // bytes untouched
  EXPECT_EQ(h.read("count").get<int>(), 3);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("count").get<int>(), 0);
  expect_illegal(h, "reset", nullptr);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(SetTimestamp, FixedTimeAndBadConfigs) {
  ElementHarness h("SetTimestamp", {{"timestamp", "1700000000.5"}});
  h.set_now(3 * kSec);
  Result r = h.push({udp4("10.0.0.1", "10.0.0.2", 1, 2)});
  ASSERT_EQ(r.meta[0].size(), 1u);
  EXPECT_EQ(r.meta[0][0].timestamp_ns, 1700000000 * kSec + 500000000);
  expect_bad_block("SetTimestamp", {{"timestamp", "yesterday"}}, "timestamp");
  expect_bad_block("SetTimestamp", {{"timestamp", "0"}}, "timestamp");
  expect_bad_block("SetTimestamp", {{"timestamp", 17}}, "timestamp");
  expect_bad_block("SetTimestamp", {{"when", "1"}}, "when");
}

TEST(SetTimestampDelta, RangeMeasuresFromTheFirstNonzeroTimestamp) {
  ElementHarness h("SetTimestampDelta", json::object());
  EXPECT_EQ(h.read("first").get<std::string>(), "");
  Batch b;
  b.add(stamped(h.pool(), 0));           // zero: unchanged, not counted
  b.add(stamped(h.pool(), 100 * kSec));  // the reference: delta 0
  b.add(stamped(h.pool(), 100 * kSec + 1500));
  b.add(stamped(h.pool(), 99 * kSec));  // before the reference: 0
  b.add(stamped(h.pool(), 103 * kSec));
  Result r = h.push_batch(b);
  ASSERT_EQ(r.meta[0].size(), 5u);
  EXPECT_EQ(r.meta[0][0].timestamp_ns, 0u);
  EXPECT_EQ(r.meta[0][1].timestamp_ns, 0u);
  EXPECT_EQ(r.meta[0][2].timestamp_ns, 1500u);
  EXPECT_EQ(r.meta[0][3].timestamp_ns, 0u);
  EXPECT_EQ(r.meta[0][4].timestamp_ns, 3 * kSec);
  EXPECT_EQ(h.read("first").get<std::string>(), "100.000000000");
  EXPECT_EQ(h.read("count").get<int>(), 4);
  EXPECT_EQ(h.read("min_ns").get<uint64_t>(), 0u);
  EXPECT_EQ(h.read("max_ns").get<uint64_t>(), 3 * kSec);
  EXPECT_DOUBLE_EQ(h.read("avg_ns").get<double>(), (1500.0 + 3e9) / 4);

  h.write("reset", nullptr);  // the next nonzero timestamp is the new reference
  EXPECT_EQ(h.read("first").get<std::string>(), "");
  EXPECT_EQ(h.read("count").get<int>(), 0);
  EXPECT_EQ(h.read("max_ns").get<uint64_t>(), 0u);
  Batch c;
  c.add(stamped(h.pool(), 200 * kSec));
  c.add(stamped(h.pool(), 200 * kSec + 7));
  r = h.push_batch(c);
  EXPECT_EQ(r.meta[0][1].timestamp_ns, 7u);
  EXPECT_EQ(h.read("first").get<std::string>(), "200.000000000");
  EXPECT_EQ(h.read("count").get<int>(), 2);
  EXPECT_EQ(h.read("min_ns").get<uint64_t>(), 0u);
  EXPECT_EQ(h.read("max_ns").get<uint64_t>(), 7u);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(SetTimestampDelta, NowGivesTheLatencySinceSetTimestampAndWritesMetadata) {
  // SetTimestamp at one point, SetTimestampDelta NOW later: the clock moved on between
  // the two pushes as it would while a queue held the packet.
  ElementHarness stamp("SetTimestamp", json::object());
  ElementHarness delta("SetTimestampDelta", {{"range", "now"}, {"metadata_key", "latency"}});
  stamp.set_now(10 * kSec);
  Result r = stamp.push({udp4("10.0.0.1", "10.0.0.2", 1, 2)});
  ASSERT_EQ(r.meta[0].size(), 1u);
  Packet* p = make_packet(delta.pool(), r.out[0][0]);
  p->timestamp_ns = r.meta[0][0].timestamp_ns;
  Packet* q = stamped(delta.pool(), 10 * kSec + 250000);
  delta.set_now(10 * kSec + 400000);
  Batch b;
  b.add(p);
  b.add(q);
  r = delta.push_batch(b);
  ASSERT_EQ(r.meta[0].size(), 2u);
  EXPECT_EQ(r.meta[0][0].timestamp_ns, 400000u);
  EXPECT_EQ(r.meta[0][1].timestamp_ns, 150000u);
  ASSERT_NE(r.meta[0][0].values.find("latency"), nullptr);
  EXPECT_EQ(*r.meta[0][0].values.find("latency"), MetaValue::of(int64_t{400000}));
  EXPECT_EQ(*r.meta[0][1].values.find("latency"), MetaValue::of(int64_t{150000}));
  EXPECT_EQ(delta.read("count").get<int>(), 2);
  EXPECT_DOUBLE_EQ(delta.read("avg_ns").get<double>(), 275000.0);
  EXPECT_EQ(delta.read("min_ns").get<uint64_t>(), 150000u);
  EXPECT_EQ(delta.read("max_ns").get<uint64_t>(), 400000u);
  EXPECT_EQ(delta.read("first").get<std::string>(), "");  // only RANGE sets a reference

  // A packet whose metadata is full still gets its delta, counted in full.
  Packet* crowded = stamped(delta.pool(), 10 * kSec);
  for (const char* k : {"a", "b", "c", "d"}) crowded->values.set(k, MetaValue::of(int64_t{1}));
  Batch c;
  c.add(crowded);
  r = delta.push_batch(c);
  EXPECT_EQ(r.meta[0][0].timestamp_ns, 400000u);
  EXPECT_EQ(r.meta[0][0].values.find("latency"), nullptr);
  EXPECT_EQ(delta.read("full").get<int>(), 1);
}

TEST(SetTimestampDelta, FirstMeasuresFromThePacketsFirstTimestamp) {
  // Arrival 50 s, stamped at 52 s by SetTimestamp: FIRST gives 2 s.
  Pipeline pl({{"SetTimestamp", json::object()}, {"SetTimestampDelta", {{"range", "FIRST"}}}});
  pl.ctx().now_ns = 52 * kSec;
  Packet* arrived = stamped(pl.pool(), 50 * kSec);
  Packet* never = make_packet(pl.pool(), udp4("10.0.0.1", "10.0.0.2", 1, 2));
  pl.push(std::vector<Packet*>{arrived, never});
  const auto& out = pl.exit(1, 0);
  ASSERT_EQ(out.meta.size(), 2u);
  EXPECT_EQ(out.meta[0].timestamp_ns, 2 * kSec);
  EXPECT_EQ(out.meta[1].timestamp_ns, 0u);  // stamped and measured at the same time

  // Without a SetTimestamp before it, FIRST leaves the packet alone.
  ElementHarness h("SetTimestampDelta", {{"range", "FIRST"}});
  Batch b;
  b.add(stamped(h.pool(), 9 * kSec));
  Result r = h.push_batch(b);
  EXPECT_EQ(r.meta[0][0].timestamp_ns, 9 * kSec);
  EXPECT_EQ(h.read("count").get<int>(), 0);
  EXPECT_EQ(pl.pool().available(), pl.pool().capacity());
}

TEST(SetTimestampDelta, ResetAcrossWorkersAndBadConfigs) {
  ElementHarness h("SetTimestampDelta", {{"range", "NOW"}}, "b", 2);
  h.set_now(10 * kSec);
  for (unsigned w : {0u, 1u}) {
    h.set_worker(w);
    Batch b;
    b.add(stamped(h.pool(), 10 * kSec - (w + 1) * 100));
    h.push_batch(b);
  }
  EXPECT_EQ(h.read("count").get<int>(), 2);
  EXPECT_EQ(h.read("min_ns").get<uint64_t>(), 100u);
  EXPECT_EQ(h.read("max_ns").get<uint64_t>(), 200u);
  h.write("reset", nullptr);
  EXPECT_EQ(h.read("count").get<int>(), 0);
  h.set_worker(1);
  Batch b;
  b.add(stamped(h.pool(), 10 * kSec - 50));
  h.push_batch(b);
  EXPECT_EQ(h.read("count").get<int>(), 1);  // worker 0's old slot does not count
  EXPECT_EQ(h.read("max_ns").get<uint64_t>(), 50u);
  EXPECT_EQ(h.read("min_ns").get<uint64_t>(), 50u);

  expect_bad_block("SetTimestampDelta", {{"range", "LATER"}}, "range");
  expect_bad_block("SetTimestampDelta", {{"range", 1}}, "range");
  expect_bad_block("SetTimestampDelta", {{"metadata_key", ""}}, "metadata_key");
  expect_bad_block("SetTimestampDelta", {{"metadata_key", std::string(16, 'k')}}, "metadata_key");
}
