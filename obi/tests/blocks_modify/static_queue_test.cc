// Alert, Log, Queue and FrontDropQueue.
#include <gtest/gtest.h>

#include "checks.hh"

using namespace obi;
using namespace obi::testing;
using namespace modtest;
using nlohmann::json;

namespace {

// Frames told apart by their UDP source port.
std::vector<Bytes> numbered(int n, int first = 1) {
  std::vector<Bytes> v;
  for (int i = 0; i < n; ++i) v.push_back(udp4("10.0.0.1", "10.0.0.2", uint16_t(first + i), 9));
  return v;
}
uint16_t number(const Bytes& b) { return be16(b, offsets(b).l4); }

}  // namespace

TEST(Alert, PostsEveryAlertPerPacketAndPassesPacket) {
  ElementHarness h(
      "Alert",
      {{"alerts",
        {{{"message", "telnet seen"}, {"severity", 4}, {"app_id", "fw"}}, {{"message", "second"}, {"app_id", "ids"}}}},
       {"attach_packet", true},
       {"packet_size", 20}},
      "alert1");
  auto in = numbered(3);
  Result r = h.push(in);
  ASSERT_EQ(r.out[0].size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r.out[0][i], in[i]);
  auto ev = h.drain_events();
  ASSERT_EQ(ev.size(), 6u);
  int fw = 0, ids = 0;
  for (const Event& e : ev) {
    EXPECT_TRUE(e.alert);
    EXPECT_EQ(e.origin_block, "alert1");
    ASSERT_EQ(e.packet.size(), 20u);
    EXPECT_EQ(0, std::memcmp(e.packet.data(), in[0].data(), 12));
    if (e.app_id == "fw") {
      ++fw;
      EXPECT_EQ(e.message, "telnet seen");
      EXPECT_EQ(e.severity, 4);
    }
    if (e.app_id == "ids") {
      ++ids;
      EXPECT_EQ(e.message, "second");
      EXPECT_EQ(e.severity, 1);
    }
  }
  EXPECT_EQ(fw, 3);
  EXPECT_EQ(ids, 3);
}

TEST(Alert, PacketSizeChoices) {
  Bytes f = udp4("1.1.1.1", "2.2.2.2", 1, 2, std::string(100, 'p'));
  ElementHarness whole("Alert", {{"alerts", {{{"message", "m"}}}}, {"attach_packet", true}, {"packet_size", -1}});
  whole.push({f});
  auto ev = whole.drain_events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].packet, std::string(f.begin(), f.end()));
  EXPECT_EQ(ev[0].app_id, "");
  ElementHarness none("Alert", {{"alerts", {{{"message", "m"}}}}, {"packet_size", 30}});
  none.push({f});
  ev = none.drain_events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_TRUE(ev[0].packet.empty());  // attach_packet defaults to false
  ElementHarness dflt("Alert", {{"alerts", {{{"message", "m"}}}}, {"attach_packet", true}});
  dflt.push({f});
  EXPECT_EQ(dflt.drain_events().at(0).packet.size(), 64u);
}

TEST(Alert, BadConfigs) {
  expect_bad_block("Alert", json::object(), "alerts");
  expect_bad_block("Alert", {{"alerts", json::array()}}, "alerts");
  expect_bad_block("Alert", {{"alerts", {"just text"}}}, "alerts[0]");
  expect_bad_block("Alert", {{"alerts", {{{"severity", 2}}}}}, "alerts[0].message");
  expect_bad_block("Alert", {{"alerts", {{{"message", "m"}, {"severity", 6}}}}}, "alerts[0].severity");
  expect_bad_block("Alert", {{"alerts", {{{"message", "m"}, {"colour", "red"}}}}}, "colour");
  expect_bad_block("Alert", {{"alerts", {{{"message", "m"}}}}, {"attach_packet", 2}}, "attach_packet");
}

TEST(Log, PostsOneLogPerPacket) {
  ElementHarness h("Log", {{"message", "flow start"}, {"severity", 2}, {"attach_packet", true}, {"packet_size", 14}},
                   "log7");
  auto in = numbered(4);
  Result r = h.push(in);
  EXPECT_EQ(r.out[0], in);
  auto ev = h.drain_events();
  ASSERT_EQ(ev.size(), 4u);
  for (const Event& e : ev) {
    EXPECT_FALSE(e.alert);
    EXPECT_EQ(e.message, "flow start");
    EXPECT_EQ(e.severity, 2);
    EXPECT_EQ(e.origin_block, "log7");
    EXPECT_EQ(e.packet, std::string(in[0].begin(), in[0].begin() + 14));
  }
  expect_bad_block("Log", json::object(), "message");
  expect_bad_block("Log", {{"message", 5}}, "message");
  expect_bad_block("Log", {{"message", "m"}, {"severity", 0}}, "severity");
  EXPECT_THROW(h.read("count"), openbox::ProtocolError);
}

TEST(Queue, HoldsUntilTaskDropsWhenFull) {
  ElementHarness h("Queue", {{"capacity", 5}});
  auto in = numbered(8);
  Result r = h.push(in);
  EXPECT_EQ(r.total(), 0u);
  EXPECT_EQ(r.dropped, 3u);
  EXPECT_EQ(h.read("length"), 5);
  EXPECT_EQ(h.read("highwater_length"), 5);
  EXPECT_EQ(h.read("drops"), 3);
  EXPECT_EQ(h.read("capacity"), 5);
  r = h.run_task();
  ASSERT_EQ(r.out[0].size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(number(r.out[0][i]), i + 1);  // the oldest five, in order
  EXPECT_EQ(h.read("length"), 0);
  EXPECT_EQ(h.read("highwater_length"), 5);
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("drops"), 0);
  EXPECT_EQ(h.read("highwater_length"), 0);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
  expect_illegal(h, "capacity", 10);
}

TEST(Queue, ReleasesABoundedBurstPerTaskRun) {
  ElementHarness h("Queue", {{"capacity", 200}});
  h.push(numbered(150));
  size_t total = 0;
  int runs = 0;
  uint16_t next = 1;
  while (total < 150 && runs < 10) {
    Result r = h.run_task();
    EXPECT_LE(r.out[0].size(), 64u);
    for (auto& b : r.out[0]) EXPECT_EQ(number(b), next++);
    total += r.out[0].size();
    ++runs;
  }
  EXPECT_EQ(total, 150u);
  EXPECT_EQ(runs, 3);
}

TEST(Queue, ResetDropsQueuedPackets) {
  ElementHarness h("Queue", {{"capacity", 50}});
  h.push(numbered(10));
  h.write("reset", nullptr);
  Result r = h.run_task();
  EXPECT_EQ(r.total(), 0u);
  EXPECT_EQ(r.dropped, 10u);
  EXPECT_EQ(h.read("length"), 0);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
  expect_bad_block("Queue", json::object(), "capacity");
  expect_bad_block("Queue", {{"capacity", 0}}, "capacity");
  expect_bad_block("Queue", {{"capacity", "lots"}}, "capacity");
}

TEST(Queue, WorkersHaveTheirOwnQueues) {
  ElementHarness h("Queue", {{"capacity", 4}}, "q", 2);
  h.set_worker(0);
  h.push(numbered(3));
  h.set_worker(1);
  h.push(numbered(6, 100));
  EXPECT_EQ(h.read("length"), 7);
  EXPECT_EQ(h.read("drops"), 2);
  Result r = h.run_task();  // worker 1 releases only its own packets
  ASSERT_EQ(r.out[0].size(), 4u);
  EXPECT_EQ(number(r.out[0][0]), 100);
  h.set_worker(0);
  EXPECT_EQ(h.run_task().out[0].size(), 3u);
}

TEST(FrontDropQueue, DropsOldestWhenFull) {
  ElementHarness h("FrontDropQueue", {{"capacity", 5}});
  Result r = h.push(numbered(8));
  EXPECT_EQ(r.dropped, 3u);
  EXPECT_EQ(h.read("length"), 5);
  EXPECT_EQ(h.read("highwater_length"), 5);
  EXPECT_EQ(h.read("capacity"), 5);
  r = h.run_task();
  ASSERT_EQ(r.out[0].size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(number(r.out[0][i]), i + 4);  // the newest five
  h.push(numbered(2));
  h.write("reset", nullptr);
  r = h.push(numbered(1, 50));  // the reset is carried out before this packet is queued
  EXPECT_EQ(r.dropped, 2u);
  EXPECT_EQ(h.read("length"), 1);
  h.run_task();
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("highwater_length"), 0);
  EXPECT_EQ(h.pool().available(), h.pool().capacity());
  expect_bad_block("FrontDropQueue", {{"capacity", -1}}, "capacity");
}
