// RandomEarlyDetectionQueue: queueing below min_thresh, certain and early drops to
// output 1, the drop fraction between the thresholds, handles and bad configs.
#include <gtest/gtest.h>

#include "checks.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

namespace {
std::vector<Bytes> frames(int n) {
  std::vector<Bytes> v;
  for (int i = 0; i < n; ++i) v.push_back(udp4("10.0.0.1", "10.0.0.2", static_cast<uint16_t>(1000 + i), 53));
  return v;
}
uint16_t sport(const Bytes& b) { return be16(b, 34); }
}  // namespace

TEST(RandomEarlyDetectionQueue, QueuesBelowMinThreshAndReleasesInOrder) {
  ElementHarness h("RandomEarlyDetectionQueue",
                   {{"capacity", 100}, {"min_thresh", 50}, {"max_thresh", 80}, {"max_p", 1.0}, {"stability", 0}});
  std::vector<Bytes> in = frames(50);
  Result r = h.push(in);
  EXPECT_EQ(r.total(), 0u);  // all held
  EXPECT_EQ(h.read("length").get<int>(), 50);
  EXPECT_EQ(h.read("avg_queue_size").get<double>(), 49.0);  // the length met by the last arrival
  r = h.run_task();
  ASSERT_EQ(r.out[0].size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(sport(r.out[0][i]), 1000 + i);
  EXPECT_EQ(h.read("drops").get<int>(), 0);
  EXPECT_EQ(h.read("highwater_length").get<int>(), 50);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(RandomEarlyDetectionQueue, AboveMaxThreshEveryArrivalIsDroppedToOutput1) {
  // stability 0: avg is the length; without gentle, avg >= max_thresh drops for certain.
  ElementHarness h(
      "RandomEarlyDetectionQueue",
      {{"capacity", 100}, {"min_thresh", 10}, {"max_thresh", 10}, {"max_p", 0.0}, {"stability", 0}, {"gentle", false}});
  Result r = h.push(frames(30));
  EXPECT_EQ(h.read("length").get<int>(), 10);
  ASSERT_EQ(r.out[1].size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(sport(r.out[1][i]), 1010 + i);
  EXPECT_EQ(h.read("drops").get<int>(), 20);
  h.write("reset", nullptr);
  r = h.run_task();  // the reset empties the queue first
  EXPECT_EQ(r.out[0].size(), 0u);
  EXPECT_EQ(h.read("length").get<int>(), 0);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("drops").get<int>(), 0);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
}

TEST(RandomEarlyDetectionQueue, AFullQueueDrops) {
  ElementHarness h("RandomEarlyDetectionQueue",
                   {{"capacity", 8}, {"min_thresh", 8}, {"max_thresh", 8}, {"max_p", 0.0}, {"stability", 10}});
  Result r = h.push(frames(20));  // the slow average stays under min_thresh
  EXPECT_EQ(h.read("length").get<int>(), 8);
  EXPECT_EQ(r.out[1].size(), 12u);
}

TEST(RandomEarlyDetectionQueue, DropsSomeArrivalsBetweenTheThresholds) {
  // stability 0 (avg = length), min 20, max 100, max_p 0.1, not gentle; nothing is
  // released while 300 packets arrive. The first 20 are queued; while the length grows
  // from 20 to 100 some arrivals are dropped early (pb rises from 0 to 0.1, spread by
  // pb / (1 - count * pb): about 6 of the 86 or so); once it is 100 every arrival is.
  // The generator is seeded, so the run is reproducible.
  ElementHarness h("RandomEarlyDetectionQueue", {{"capacity", 1000},
                                                 {"min_thresh", 20},
                                                 {"max_thresh", 100},
                                                 {"max_p", 0.1},
                                                 {"stability", 0},
                                                 {"gentle", false}});
  Result r = h.push(frames(300));
  EXPECT_EQ(h.read("length").get<int>(), 100);
  EXPECT_EQ(r.out[1].size(), 200u);
  std::vector<Bytes> kept = h.run_task().out[0];
  std::vector<Bytes> rest = h.run_task().out[0];
  kept.insert(kept.end(), rest.begin(), rest.end());
  ASSERT_EQ(kept.size(), 100u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(sport(kept[i]), 1000 + i);
  const int last = sport(kept.back()) - 1000;  // the arrival that made the length 100
  const int early = last + 1 - 100;            // dropped while 20 <= length < 100
  EXPECT_GE(early, 2);
  EXPECT_LE(early, 20);
  int later = 0;  // every later arrival was dropped
  for (const Bytes& d : r.out[1]) later += sport(d) > 1000 + last;
  EXPECT_EQ(later, 300 - last - 1);
}

TEST(RandomEarlyDetectionQueue, HandlesAndBadConfigs) {
  ElementHarness h("RandomEarlyDetectionQueue",
                   {{"capacity", 10}, {"min_thresh", 2}, {"max_thresh", 5}, {"max_p", 0.1}});
  EXPECT_EQ(h.read("capacity").get<int>(), 10);
  EXPECT_EQ(h.read("min_thresh").get<double>(), 2.0);
  EXPECT_EQ(h.read("max_thresh").get<double>(), 5.0);
  EXPECT_EQ(h.element().output_count(), 2);
  expect_illegal(h, "nope", 1);
  json ok = {{"capacity", 10}, {"min_thresh", 2}, {"max_thresh", 5}, {"max_p", 0.1}};
  auto with = [&](const char* k, json v) {
    json c = ok;
    c[k] = std::move(v);
    return c;
  };
  expect_bad_block("RandomEarlyDetectionQueue", json::object(), "capacity");
  expect_bad_block("RandomEarlyDetectionQueue", with("capacity", 0), "capacity");
  expect_bad_block("RandomEarlyDetectionQueue", with("min_thresh", -1), "min_thresh");
  expect_bad_block("RandomEarlyDetectionQueue", with("max_thresh", 1), "max_thresh");
  expect_bad_block("RandomEarlyDetectionQueue", with("max_thresh", 11), "max_thresh");
  expect_bad_block("RandomEarlyDetectionQueue", with("max_p", 1.5), "max_p");
  expect_bad_block("RandomEarlyDetectionQueue", with("stability", 31), "stability");
  expect_bad_block("RandomEarlyDetectionQueue", with("gentle", "yes"), "gentle");
  expect_bad_block("RandomEarlyDetectionQueue", with("min_threash", 1), "min_threash");
}
