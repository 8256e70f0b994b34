// Graphs as deep as the caps allow run on the real blocks without exhausting the worker's
// stack (the push path hands batches on iteratively past a fixed nesting, see
// Outputs::emit), and graphs over a cap (engine/limits.hh) are refused with the protocol's
// Error naming the cap and the value.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "engine/graph.hh"
#include "engine/runtime.hh"
#include "openbox/error.hh"

using namespace obi;
using json = nlohmann::json;

namespace {

std::string pcap() { return std::string(OPENBOX_ROOT) + "/../shared/data/pcap/zeek-wikipedia.pcap"; }

json blk(const std::string& type, const std::string& name, json config = json::object()) {
  return {{"type", type}, {"name", name}, {"config", std::move(config)}};
}
json con(const std::string& s, int sp, const std::string& d, int dp = 0) {
  return {{"src", s}, {"src_port", sp}, {"dst", d}, {"dst_port", dp}};
}

// FromDump -> ContentClassifier x blocks -> Discard "out": each classifier's output 0
// (IPv4) leads on, output 1 (anything else) is not connected (dropped).
json chain(std::size_t blocks) {
  json g = {{"blocks", {blk("FromDump", "in", {{"filename", pcap()}})}}, {"connectors", json::array()}};
  std::string prev = "in";
  for (std::size_t i = 0; i < blocks; ++i) {
    const std::string c = "c" + std::to_string(i);
    g["blocks"].push_back(blk("ContentClassifier", c, {{"pattern", {"12/0800", "-"}}}));
    g["connectors"].push_back(con(prev, 0, c));
    prev = c;
  }
  g["blocks"].push_back(blk("Discard", "out"));
  g["connectors"].push_back(con(prev, 0, "out"));
  return g;
}

// A deep tree: level i is a ContentClassifier whose output 0 (IPv4) leads to level i + 1
// and whose output 1 (everything else) to a Discard leaf of its own; the last level
// leads to Discard "out".
json caterpillar(std::size_t levels) {
  json g = {{"blocks", {blk("FromDump", "in", {{"filename", pcap()}})}}, {"connectors", json::array()}};
  std::string prev = "in";
  for (std::size_t i = 0; i < levels; ++i) {
    const std::string c = "c" + std::to_string(i), leaf = "leaf" + std::to_string(i);
    g["blocks"].push_back(blk("ContentClassifier", c, {{"pattern", {"12/0800", "-"}}}));
    g["blocks"].push_back(blk("Discard", leaf));
    g["connectors"].push_back(con(prev, 0, c));
    g["connectors"].push_back(con(c, 1, leaf));
    prev = c;
  }
  g["blocks"].push_back(blk("Discard", "out"));
  g["connectors"].push_back(con(prev, 0, "out"));
  return g;
}

// Runs the graph over the trace on one worker; returns the packets Discard "out" saw.
uint64_t run(json graph, RuntimeStats* stats = nullptr) {
  RuntimeOptions o;
  o.workers = 1;
  Runtime rt(o);
  rt.set_graph(std::move(graph));
  rt.start();
  for (int i = 0; i < 120000 && !rt.sources_done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(rt.sources_done());
  rt.stop();
  if (stats) *stats = rt.stats();
  return rt.read("out", "count").get<uint64_t>();
}

void expect_refused(const json& graph, const GraphLimits& limits, openbox::ErrorSubtype subtype,
                    const std::string& text) {
  CompileOptions o;
  o.limits = limits;
  try {
    compile_graph(graph, o);
    ADD_FAILURE() << "the graph was accepted; expected: " << text;
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), subtype) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(DeepGraph, ChainOf40000BlocksRunsAsAShortOneDoes) {
  RuntimeStats shallow, deep;
  const uint64_t ipv4 = run(chain(1), &shallow);
  const uint64_t out = run(chain(40000), &deep);  // 40,002 blocks, each pushing into the next
  EXPECT_GT(ipv4, 0u);
  EXPECT_LT(ipv4, shallow.packets_in);  // the trace has non-IPv4 frames too
  EXPECT_EQ(out, ipv4);
  EXPECT_EQ(deep.packets_in, shallow.packets_in);
  EXPECT_EQ(deep.packets_dropped, deep.packets_in);  // the first classifier's misses, and Discard
}

TEST(DeepGraph, DeepTreeSplitsAsAShallowOneDoes) {
  RuntimeStats shallow, deep;
  const uint64_t ipv4 = run(caterpillar(1), &shallow);
  const uint64_t out = run(caterpillar(20000), &deep);  // 40,002 blocks
  EXPECT_GT(ipv4, 0u);
  EXPECT_EQ(out, ipv4);
  EXPECT_EQ(deep.packets_in, shallow.packets_in);
  EXPECT_EQ(deep.packets_dropped, deep.packets_in);
}

TEST(DeepGraph, CapsRefuseWithTheCapAndTheValue) {
  using openbox::ErrorSubtype;
  GraphLimits l;
  l.max_blocks = 100;
  expect_refused(chain(99), l, ErrorSubtype::BAD_GRAPH, "101 blocks, over the cap of 100 (--max-blocks)");
  l = GraphLimits{};
  l.max_depth = 60;
  expect_refused(caterpillar(60), l, ErrorSubtype::BAD_GRAPH,
                 "longest path of 62 blocks, over the cap of 60 (--max-depth)");
  l = GraphLimits{};
  l.max_rules = 2;
  json three = caterpillar(1);
  three["blocks"][1]["config"]["pattern"] = {"12/0800", "12/86dd", "-"};
  expect_refused(three, l, ErrorSubtype::BAD_BLOCK,
                 "block 'c0' (ContentClassifier): 3 rules in 'pattern', over the cap of 2 (--max-rules)");
  json hpc = {{"blocks",
               {blk("FromDump", "in", {{"filename", pcap()}}),
                blk("HeaderPayloadClassifier", "ips",
                    {{"match",
                      {{{"payload_match", {{{"pattern", "abc"}}, {{"pattern", "defg"}}}}},
                       {{"payload_match", {{{"pattern", "hij"}}}}}}}})}},
              {"connectors", {con("in", 0, "ips")}}};
  l = GraphLimits{};
  l.max_patterns = 2;
  expect_refused(hpc, l, ErrorSubtype::BAD_PAYLOAD_MATCH,
                 "block 'ips' (HeaderPayloadClassifier): 3 payload patterns, over the cap of 2 (--max-patterns)");
  l = GraphLimits{};
  l.max_pattern_bytes = 9;
  expect_refused(hpc, l, ErrorSubtype::BAD_PAYLOAD_MATCH,
                 "the graph's payload patterns reach 10 bytes here, over the cap of 9 bytes (--max-pattern-kib)");
  l.max_pattern_bytes = 10;
  CompileOptions o;
  o.limits = l;
  EXPECT_NO_THROW(compile_graph(hpc, o));  // at the caps: accepted
}
