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
  return {{"blocks", {blk("TestSource", "src", {{"limit", limit}}), blk("TestPass", "p", {{"tag", tag}}),
                      blk("TestSink", "sink")}},
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
  EXPECT_EQ(rt.read("sink", "count").get<uint64_t>(), 20000u);   // each worker's source runs to its limit
  EXPECT_EQ(rt.read("sink", "gaps").get<uint64_t>(), 0u);
  RuntimeStats s = rt.stats();
  EXPECT_EQ(s.packets_in, 20000u);
  EXPECT_EQ(s.packets_out, 20000u);
  EXPECT_EQ(s.packets_dropped, 0u);
  EXPECT_EQ(s.bytes_in, 20000u * 60);   // 58-byte frames padded to the 60-byte minimum
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
  EXPECT_GT(got, before);                 // the sink was carried over: its count kept growing
  EXPECT_GT(produced, 0u);
  EXPECT_EQ(produced, got);               // no packet lost across 30 swaps
  EXPECT_EQ(rt.read("sink", "gaps").get<uint64_t>(), 0u);
  RuntimeStats s = rt.stats();
  EXPECT_EQ(s.packets_in, s.packets_out + s.packets_dropped);
  EXPECT_EQ(s.packets_in, produced);
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
  rt.set_graph(direct(200));              // changed config: a new source, not done
  wait_done(rt);
  EXPECT_TRUE(rt.sources_done());
  rt.stop();
  EXPECT_EQ(rt.read("src", "count").get<uint64_t>(), 200u);
  EXPECT_EQ(rt.read("sink", "count").get<uint64_t>(), 300u);   // sink carried over
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
  EXPECT_EQ(s.packets_dropped, 10000u - 2000u);   // 1000 held per worker
  rt.set_graph(direct(10));                       // `hold` leaves: its packets are released
  wait_done(rt);
  rt.stop();
  s = rt.stats();
  EXPECT_EQ(s.packets_in, s.packets_out + s.packets_dropped);
  EXPECT_EQ(s.packets_out, 20u);
}

}  // namespace
