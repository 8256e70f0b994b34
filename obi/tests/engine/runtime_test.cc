// Runtime: workers, hitless swap under traffic, handles, stats.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/runtime.hh"
#include "test_elements.hh"

using namespace obi;
using namespace obi::testing;
using json = nlohmann::json;

namespace {

json blk(const std::string& type, const std::string& name, json config = json::object()) {
  return {{"type", type}, {"name", name}, {"config", config}};
}
json con(const std::string& s, int sp, const std::string& d, int dp) {
  return {{"src", s}, {"src_port", sp}, {"dst", d}, {"dst_port", dp}};
}
json direct(uint64_t limit = 0) {
  return {{"blocks", {blk("TestSource", "src", {{"limit", limit}}), blk("TestSink", "sink")}},
          {"connectors", {con("src", 0, "sink", 0)}}};
}
json via(int tag, uint64_t limit = 0) {
  return {
      {"blocks",
       {blk("TestSource", "src", {{"limit", limit}}), blk("TestPass", "p", {{"tag", tag}}), blk("TestSink", "sink")}},
      {"connectors", {con("src", 0, "p", 0), con("p", 0, "sink", 0)}}};
}
void wait_done(Runtime& rt) {
  for (int i = 0; i < 5000 && !rt.sources_done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(Runtime, RunsToCompletionAndCounts) {
  register_test_elements();
  RuntimeOptions o;
  o.workers = 2;
  Runtime rt(o);
  rt.set_graph(direct(10000));
  EXPECT_FALSE(rt.sources_done());
  rt.start();
  wait_done(rt);
  ASSERT_TRUE(rt.sources_done());
  rt.stop();
  EXPECT_EQ(rt.read("sink", "count").get<uint64_t>(), 20000u);  // each worker's source runs to its limit
  EXPECT_EQ(rt.read("sink", "gaps").get<uint64_t>(), 0u);
  RuntimeStats s = rt.stats();
  EXPECT_EQ(s.packets_in, 20000u);
  EXPECT_EQ(s.packets_out, 20000u);
  EXPECT_EQ(s.packets_dropped, 0u);
  EXPECT_EQ(s.bytes_in, 20000u * 60);  // 58-byte frames padded to the 60-byte minimum
  EXPECT_EQ(rt.graph(), direct(10000));
  EXPECT_THROW(rt.read("nope", "count"), openbox::ProtocolError);
  EXPECT_THROW(rt.read("sink", "nope"), openbox::ProtocolError);
}

TEST(Runtime, SwapUnderTrafficLosesNothingAndKeepsUnchangedBlocks) {
  register_test_elements();
  RuntimeOptions o;
  o.workers = 2;
  Runtime rt(o);
  rt.set_graph(direct());
  rt.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  uint64_t before = rt.read("sink", "count").get<uint64_t>();
  for (int i = 0; i < 30; ++i) {
    rt.set_graph(i % 2 ? direct() : via(i));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // An invalid graph leaves the running one untouched.
  json bad = via(99);
  bad["connectors"][1]["dst"] = "ghost";
  EXPECT_THROW(rt.set_graph(bad), openbox::ProtocolError);
  EXPECT_EQ(rt.graph(), direct());
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  rt.stop();
  uint64_t produced = rt.read("src", "count").get<uint64_t>();
  uint64_t got = rt.read("sink", "count").get<uint64_t>();
  EXPECT_GT(got, before);  // the sink was carried over: its count kept growing
  EXPECT_GT(produced, 0u);
  EXPECT_EQ(produced, got);  // no packet lost across 30 swaps
  EXPECT_EQ(rt.read("sink", "gaps").get<uint64_t>(), 0u);
  RuntimeStats s = rt.stats();
  EXPECT_EQ(s.packets_in, s.packets_out + s.packets_dropped);
  EXPECT_EQ(s.packets_in, produced);
}

TEST(Runtime, ReplacedGraphIsDeactivatedAtOnceAndFreedByReleaseRetired) {
  register_test_elements();
  auto counted = [](int tag) {
    return json{
        {"blocks", {blk("TestSource", "src"), blk("TestCounted", "c", {{"tag", tag}}), blk("TestSink", "sink")}},
        {"connectors", {con("src", 0, "c", 0), con("c", 0, "sink", 0)}}};
  };
  const int alive0 = TestCounted::alive().load();
  {
    RuntimeOptions o;
    o.workers = 2;
    Runtime rt(o);
    rt.set_graph(counted(1));
    rt.start();
    EXPECT_EQ(TestCounted::alive().load(), alive0 + 1);
    const int deactivated0 = TestCounted::deactivated().load();
    rt.set_graph(counted(2));  // "c" is rebuilt: the old one leaves service now...
    EXPECT_EQ(TestCounted::deactivated().load(), deactivated0 + 1);
    EXPECT_EQ(TestCounted::alive().load(), alive0 + 2);  // ...and is freed later
    rt.release_retired();
    EXPECT_EQ(TestCounted::alive().load(), alive0 + 1);
    rt.release_retired();  // nothing left: harmless
    EXPECT_EQ(TestCounted::alive().load(), alive0 + 1);
    // Callers that never release keep at most one replaced graph.
    for (int tag = 3; tag < 8; ++tag) {
      rt.set_graph(counted(tag));
      EXPECT_EQ(TestCounted::alive().load(), alive0 + 2) << "after tag " << tag;
    }
    // Unchanged blocks are carried, not retired.
    rt.release_retired();
    rt.set_graph(counted(7));
    EXPECT_EQ(TestCounted::alive().load(), alive0 + 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    rt.stop();
    EXPECT_EQ(rt.read("sink", "gaps").get<uint64_t>(), 0u);
    EXPECT_EQ(rt.read("src", "count").get<uint64_t>(), rt.read("sink", "count").get<uint64_t>());
  }
  EXPECT_EQ(TestCounted::alive().load(), alive0);  // the Runtime frees everything it kept
}

TEST(Runtime, ReplacedSourceStartsAfresh) {
  register_test_elements();
  RuntimeOptions o;
  o.workers = 1;
  Runtime rt(o);
  rt.set_graph(direct(100));
  rt.start();
  wait_done(rt);
  EXPECT_TRUE(rt.sources_done());
  rt.set_graph(direct(200));  // changed config: a new source, not done
  wait_done(rt);
  EXPECT_TRUE(rt.sources_done());
  rt.stop();
  EXPECT_EQ(rt.read("src", "count").get<uint64_t>(), 200u);
  EXPECT_EQ(rt.read("sink", "count").get<uint64_t>(), 300u);  // sink carried over
}

TEST(Runtime, SupportedBlocksAreInCatalogueAndBuilt) {
  auto s = Runtime::supported_blocks();
  EXPECT_NE(std::find(s.begin(), s.end(), "Discard"), s.end());
  EXPECT_NE(std::find(s.begin(), s.end(), "FromDump"), s.end());
  for (const auto& b : s) EXPECT_NE(find_element(b), nullptr) << b;
}

}  // namespace

namespace {

TEST(Runtime, SwapReleasesPacketsHeldByRemovedElements) {
  register_test_elements();
  RuntimeOptions o;
  o.workers = 2;
  Runtime rt(o);
  json hold = {{"blocks", {blk("TestSource", "src", {{"limit", 5000}}), blk("TestHold", "hold")}},
               {"connectors", {con("src", 0, "hold", 0)}}};
  rt.set_graph(hold);
  rt.start();
  wait_done(rt);
  RuntimeStats s = rt.stats();
  EXPECT_EQ(s.packets_in, 10000u);
  EXPECT_EQ(s.packets_dropped, 10000u - 2000u);  // 1000 held per worker
  rt.set_graph(direct(10));                      // `hold` leaves: its packets are released
  wait_done(rt);
  rt.stop();
  s = rt.stats();
  EXPECT_EQ(s.packets_in, s.packets_out + s.packets_dropped);
  EXPECT_EQ(s.packets_out, 20u);
}

}  // namespace

// Queues and shapers hand their held packets on when a swap removes them and when the
// runtime stops (Element::release), so packets in = out + dropped at every point.
namespace {

json held_by(const std::string& type, const std::string& name, json config, uint64_t limit = 0) {
  return {{"blocks", {blk("TestSource", "src", {{"limit", limit}}), blk(type, name, config), blk("TestSink", "sink")}},
          {"connectors", {con("src", 0, name, 0), con(name, 0, "sink", 0)}}};
}

TEST(Runtime, SwapUnderTrafficWithQueuesAndShapersConservesPackets) {
  register_test_elements();
  RuntimeOptions o;
  o.workers = 2;
  Runtime rt(o);
  // Capacities above the pool size (4096 per worker): nothing overflows, so any lost or
  // reordered packet shows up as a difference or a gap at the carried sink.
  rt.set_graph(held_by("Queue", "q", {{"capacity", 5000}}));
  rt.start();
  for (int i = 0; i < 24; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    switch (i % 4) {
      case 0: rt.set_graph(held_by("PpsShaper", "s", {{"rate", 20000 + i}, {"capacity", 5000}})); break;
      case 1: rt.set_graph(held_by("BpsShaper", "s", {{"rate", 1e6 + i}, {"capacity", 5000}})); break;
      case 2: rt.set_graph(held_by("FrontDropQueue", "q", {{"capacity", 5000 + i}})); break;
      default: rt.set_graph(i == 23 ? direct() : held_by("Queue", "q", {{"capacity", 5000 + i}})); break;
    }
  }
  rt.set_graph(held_by("PpsShaper", "s", {{"rate", 1000}, {"capacity", 5000}}));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GT(rt.read("s", "length").get<uint64_t>(), 0u);  // the slow shaper holds packets at stop
  rt.stop();
  EXPECT_EQ(rt.read("s", "length").get<uint64_t>(), 0u);
  uint64_t produced = rt.read("src", "count").get<uint64_t>();
  EXPECT_GT(produced, 0u);
  EXPECT_EQ(rt.read("sink", "count").get<uint64_t>(), produced);
  EXPECT_EQ(rt.read("sink", "gaps").get<uint64_t>(), 0u);
  RuntimeStats s = rt.stats();
  EXPECT_EQ(s.packets_in, produced);
  EXPECT_EQ(s.packets_out, produced);
  EXPECT_EQ(s.packets_dropped, 0u);
}

TEST(Runtime, RemovedShaperDrainsDownstreamAndCarriedOneKeepsPackets) {
  register_test_elements();
  RuntimeOptions o;
  o.workers = 2;
  Runtime rt(o);
  json slow = held_by("PpsShaper", "s", {{"rate", 1}, {"capacity", 500}}, 1000);
  rt.set_graph(slow);
  rt.start();
  wait_done(rt);
  ASSERT_TRUE(rt.sources_done());
  uint64_t held = rt.read("s", "length").get<uint64_t>();
  uint64_t drops = rt.read("s", "drops").get<uint64_t>();
  EXPECT_GE(held, 990u);  // 500 per worker wait for tokens
  EXPECT_GE(drops, 990u);
  // An unrelated block is added: the shaper is carried and keeps its packets.
  json again = slow;
  again["blocks"].push_back(blk("TestPass", "idle", {{"tag", 1}}));
  rt.set_graph(again);
  uint64_t kept = rt.read("s", "length").get<uint64_t>();
  EXPECT_GE(kept, held - 5);
  EXPECT_EQ(rt.read("s", "drops").get<uint64_t>(), drops);
  // A shaper with another rate replaces it: the old one hands its packets to the sink.
  uint64_t before = rt.read("sink", "count").get<uint64_t>();
  rt.set_graph(held_by("PpsShaper", "s", {{"rate", 2}, {"capacity", 500}}, 1000));
  uint64_t after = rt.read("sink", "count").get<uint64_t>();
  EXPECT_GE(after, before + kept - 5);
  EXPECT_EQ(rt.read("s", "length").get<uint64_t>(), 0u);
  rt.stop();
  RuntimeStats st = rt.stats();
  EXPECT_EQ(st.packets_in, 2000u);
  EXPECT_EQ(st.packets_dropped, drops);  // only FIFO overflow
  EXPECT_EQ(st.packets_out, 2000u - drops);
}

TEST(Runtime, StopDrainsShaperAndAQueueBehindIt) {
  register_test_elements();
  RuntimeOptions o;
  o.workers = 1;
  Runtime rt(o);
  json g = {{"blocks",
             {blk("TestSource", "src", {{"limit", 50}}), blk("PpsShaper", "s", {{"rate", 1}, {"capacity", 100}}),
              blk("Queue", "q", {{"capacity", 100}}), blk("TestSink", "sink")}},
            {"connectors", {con("src", 0, "s", 0), con("s", 0, "q", 0), con("q", 0, "sink", 0)}}};
  rt.set_graph(g);
  rt.start();
  wait_done(rt);
  EXPECT_GE(rt.read("s", "length").get<uint64_t>(), 45u);
  rt.stop();  // the shaper drains into the queue, which then drains into the sink
  EXPECT_EQ(rt.read("s", "length").get<uint64_t>(), 0u);
  EXPECT_EQ(rt.read("q", "length").get<uint64_t>(), 0u);
  EXPECT_EQ(rt.read("sink", "count").get<uint64_t>(), 50u);
  EXPECT_EQ(rt.read("sink", "gaps").get<uint64_t>(), 0u);
  EXPECT_EQ(rt.stats().packets_out, 50u);
}

}  // namespace
