// Graph validation: every error subtype, with the offending block / connector named.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "engine/graph.hh"
#include "test_elements.hh"

using namespace obi;
using namespace obi::testing;
using openbox::ErrorSubtype;
using json = nlohmann::json;

namespace {

json blk(const std::string& type, const std::string& name, json config = json::object()) {
  return {{"type", type}, {"name", name}, {"config", config}};
}
json con(const std::string& s, int sp, const std::string& d, int dp) {
  return {{"src", s}, {"src_port", sp}, {"dst", d}, {"dst_port", dp}};
}

std::mutex& build_mu() {
  static std::mutex m;
  return m;
}
std::map<std::string, std::thread::id>& build_threads() {
  static std::map<std::string, std::thread::id> t;
  return t;
}

class GraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_test_elements();
    static bool once = false;
    if (!once) {
      once = true;
      register_element("TestBadMatch", [](const ElementArgs& a) -> std::unique_ptr<Element> {
        if (a.config.contains("payload"))
          throw openbox::ProtocolError(ErrorSubtype::BAD_PAYLOAD_MATCH, "block '" + a.name + "': bad pattern");
        throw openbox::ProtocolError(ErrorSubtype::BAD_HEADER_MATCH, "block '" + a.name + "': bad match");
      });
      // A classifier whose build takes a while and records the thread it ran on.
      register_element("TestBuildThread", [](const ElementArgs& a) -> std::unique_ptr<Element> {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        {
          std::lock_guard<std::mutex> lock(build_mu());
          build_threads()[a.name] = std::this_thread::get_id();
        }
        return std::make_unique<TestPass>(a);
      });
      Catalogue::builtin().add(Catalogue::parse(json{{"name", "TestBuildThread"},
                                                     {"class", "classifier"},
                                                     {"spec", "extension"},
                                                     {"required", false},
                                                     {"config", json::array()},
                                                     {"read_handles", json::array()},
                                                     {"write_handles", json::array()},
                                                     {"inputs", 1},
                                                     {"outputs", 1}}));
      Catalogue::builtin().add(Catalogue::parse(json{{"name", "TestBadMatch"},
                                                     {"class", "classifier"},
                                                     {"spec", "extension"},
                                                     {"required", false},
                                                     {"config", json::array({{{"name", "payload"}, {"type", "any"}}})},
                                                     {"read_handles", json::array()},
                                                     {"write_handles", json::array()},
                                                     {"inputs", 1},
                                                     {"outputs", 1}}));
    }
  }

  // Expects compile to fail with `sub`, with every string of `mention` in the message.
  void expect_error(const json& g, ErrorSubtype sub, std::vector<std::string> mention) {
    try {
      compile_graph(g, CompileOptions{});
      FAIL() << "compiled: " << g.dump();
    } catch (const openbox::ProtocolError& e) {
      EXPECT_EQ(e.subtype(), sub) << e.what();
      for (const auto& m : mention) EXPECT_NE(std::string(e.what()).find(m), std::string::npos) << e.what();
    }
  }

  json ok_graph() {
    return {{"blocks", {blk("TestSource", "src"), blk("TestPass", "p"), blk("TestSink", "sink")}},
            {"connectors", {con("src", 0, "p", 0), con("p", 0, "sink", 0)}}};
  }
};

TEST_F(GraphTest, ValidGraphCompilesAndWires) {
  auto g = compile_graph(ok_graph(), CompileOptions{});
  ASSERT_EQ(g->nodes.size(), 3u);
  EXPECT_EQ(g->sources, std::vector<uint32_t>{0});
  EXPECT_EQ(g->nodes[0].outputs.links[0].node, &g->nodes[1]);
  EXPECT_EQ(g->nodes[1].outputs.links[0].node, &g->nodes[2]);
  EXPECT_EQ(g->find("p")->type(), "TestPass");
  EXPECT_EQ(g->find("p")->name(), "p");
}

TEST_F(GraphTest, UnknownTypeIsUnsupported) {
  json g = ok_graph();
  g["blocks"][1]["type"] = "NoSuchBlock";
  expect_error(g, ErrorSubtype::UNSUPPORTED_BLOCK, {"'p'", "NoSuchBlock"});
}

TEST_F(GraphTest, CatalogueTypeWithoutFactoryIsUnsupported) {
  Catalogue::builtin().add(Catalogue::parse(json{{"name", "TestUnbuilt"},
                                                 {"class", "static"},
                                                 {"spec", "extension"},
                                                 {"required", false},
                                                 {"config", json::array()},
                                                 {"read_handles", json::array()},
                                                 {"write_handles", json::array()},
                                                 {"inputs", 1},
                                                 {"outputs", 1}}));
  json g = ok_graph();
  g["blocks"][1]["type"] = "TestUnbuilt";
  expect_error(g, ErrorSubtype::UNSUPPORTED_BLOCK, {"'p'", "not implemented"});
}

TEST_F(GraphTest, BadConfigIsBadBlock) {
  json g = ok_graph();
  g["blocks"][1]["config"] = {{"no_such_arg", 1}};
  expect_error(g, ErrorSubtype::BAD_BLOCK, {"p", "no_such_arg"});
  g["blocks"][1]["config"] = {{"tag", "not an integer"}};
  expect_error(g, ErrorSubtype::BAD_BLOCK, {"p", "tag"});
  g["blocks"][1]["config"] = json::array();
  expect_error(g, ErrorSubtype::BAD_BLOCK, {"'p'", "config"});
}

TEST_F(GraphTest, FactoryErrorsPassThrough) {
  json g = ok_graph();
  g["blocks"][1] = blk("TestBadMatch", "cls");
  g["connectors"] = {con("src", 0, "cls", 0)};
  expect_error(g, ErrorSubtype::BAD_HEADER_MATCH, {"cls"});
  g["blocks"][1]["config"] = {{"payload", "x"}};
  expect_error(g, ErrorSubtype::BAD_PAYLOAD_MATCH, {"cls"});
}

TEST_F(GraphTest, DuplicateOrMissingNamesAreBadBlock) {
  json g = ok_graph();
  g["blocks"][2]["name"] = "p";
  expect_error(g, ErrorSubtype::BAD_BLOCK, {"duplicate", "'p'"});
  g = ok_graph();
  g["blocks"][1].erase("name");
  expect_error(g, ErrorSubtype::BAD_BLOCK, {"blocks[1]", "name"});
  g = ok_graph();
  g["blocks"][1]["type"] = 5;
  expect_error(g, ErrorSubtype::BAD_BLOCK, {"'p'", "type"});
}

TEST_F(GraphTest, ConnectorErrors) {
  json g = ok_graph();
  g["connectors"].push_back(con("p", 0, "ghost", 0));
  expect_error(g, ErrorSubtype::BAD_CONNECTOR, {"ghost"});
  g = ok_graph();
  g["connectors"].push_back(con("phantom", 0, "sink", 0));
  expect_error(g, ErrorSubtype::BAD_CONNECTOR, {"phantom"});
  g = ok_graph();
  g["connectors"][1]["src_port"] = 3;
  expect_error(g, ErrorSubtype::BAD_CONNECTOR, {"p[3]", "1 output"});
  g = ok_graph();
  g["connectors"][1]["dst_port"] = 1;
  expect_error(g, ErrorSubtype::BAD_CONNECTOR, {"sink[1]", "1 input"});
  g = ok_graph();
  g["connectors"].push_back(con("p", 0, "sink", 0));  // output 0 of p twice
  expect_error(g, ErrorSubtype::BAD_CONNECTOR, {"already connected", "'p'"});
  g = ok_graph();
  g["connectors"][0]["src_port"] = "zero";
  expect_error(g, ErrorSubtype::BAD_CONNECTOR, {"src_port"});
  g = ok_graph();
  g["connectors"][0]["src_port"] = -1;
  expect_error(g, ErrorSubtype::BAD_CONNECTOR, {"src"});
}

TEST_F(GraphTest, CycleAndNoSourceAreBadGraph) {
  json g = {{"blocks", {blk("TestSource", "src"), blk("TestPass", "a"), blk("TestPass", "b")}},
            {"connectors", {con("src", 0, "a", 0), con("a", 0, "b", 0), con("b", 0, "a", 0)}}};
  expect_error(g, ErrorSubtype::BAD_GRAPH, {"cycle"});
  g = {{"blocks", {blk("TestPass", "a"), blk("TestSink", "s")}}, {"connectors", {con("a", 0, "s", 0)}}};
  expect_error(g, ErrorSubtype::BAD_GRAPH, {"no source"});
  expect_error(json::array(), ErrorSubtype::BAD_GRAPH, {"object"});
  expect_error(json{{"connectors", json::array()}}, ErrorSubtype::BAD_GRAPH, {"blocks"});
}

TEST_F(GraphTest, UnchangedElementsAreCarriedOver) {
  auto a = compile_graph(ok_graph(), CompileOptions{});
  json g2 = ok_graph();
  g2["blocks"][1]["config"] = {{"tag", 2}};
  CompileOptions co;
  co.previous = a.get();
  auto b = compile_graph(g2, co);
  EXPECT_EQ(b->find("src"), a->find("src"));
  EXPECT_EQ(b->find("sink"), a->find("sink"));
  EXPECT_NE(b->find("p"), a->find("p"));
  EXPECT_TRUE(b->carried[0]);
  EXPECT_FALSE(b->carried[1]);
}

// Several classifiers to build: built on build_threads threads at once (the caller one of
// them), the graph wired as with one thread; a classifier carried over is not rebuilt.
TEST_F(GraphTest, ClassifiersAreBuiltInParallel) {
  const json g = {
      {"blocks",
       {blk("TestSource", "src"), blk("TestBuildThread", "c1"), blk("TestBuildThread", "c2"), blk("TestSink", "sink")}},
      {"connectors", {con("src", 0, "c1", 0), con("c1", 0, "c2", 0), con("c2", 0, "sink", 0)}}};
  auto threads_of = [&](unsigned n, const CompiledGraph* previous) {
    build_threads().clear();
    CompileOptions co;
    co.build_threads = n;
    co.previous = previous;
    auto compiled = compile_graph(g, co);
    EXPECT_EQ(compiled->links[1][0].node, &compiled->nodes[2]);
    EXPECT_EQ(compiled->links[2][0].node, &compiled->nodes[3]);
    return std::make_pair(std::move(compiled), build_threads());
  };
  auto [one, on_one] = threads_of(1, nullptr);
  ASSERT_EQ(on_one.size(), 2u);
  EXPECT_EQ(on_one["c1"], std::this_thread::get_id());
  EXPECT_EQ(on_one["c2"], std::this_thread::get_id());
  auto [two, on_two] = threads_of(2, nullptr);
  ASSERT_EQ(on_two.size(), 2u);
  EXPECT_NE(on_two["c1"], on_two["c2"]);
  EXPECT_TRUE(on_two["c1"] == std::this_thread::get_id() || on_two["c2"] == std::this_thread::get_id());
  auto [again, rebuilt] = threads_of(2, two.get());
  EXPECT_TRUE(rebuilt.empty());
  EXPECT_EQ(again->find("c1"), two->find("c1"));
}

// With classifiers built at once, the error is still the first failing block's in order.
TEST_F(GraphTest, ParallelBuildReportsTheFirstFailingBlock) {
  const json g = {{"blocks",
                   {blk("TestSource", "src"), blk("TestBadMatch", "bad1"),
                    blk("TestBadMatch", "bad2", {{"payload", "x"}}), blk("TestSink", "sink")}},
                  {"connectors", {con("src", 0, "bad1", 0), con("bad1", 0, "bad2", 0), con("bad2", 0, "sink", 0)}}};
  for (unsigned n : {1u, 2u}) {
    CompileOptions co;
    co.build_threads = n;
    try {
      compile_graph(g, co);
      FAIL() << "compiled with " << n << " thread(s)";
    } catch (const openbox::ProtocolError& e) {
      EXPECT_EQ(e.subtype(), ErrorSubtype::BAD_HEADER_MATCH) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad1"), std::string::npos) << e.what();
    }
  }
}

// Malformed input of every kind is rejected with a ProtocolError, never a crash.
TEST_F(GraphTest, MalformedGraphsNeverCrash) {
  std::vector<json> bad = {
      json(),
      json(3),
      json("x"),
      json{{"blocks", 1}},
      json{{"blocks", json::array({1, "a", nullptr})}},
      json{{"blocks", json::array({json::object()})}},
      json{{"blocks", {blk("TestSource", "s")}}, {"connectors", "x"}},
      json{{"blocks", {blk("TestSource", "s")}}, {"connectors", json::array({1})}},
      json{{"blocks", {blk("TestSource", "s")}}, {"connectors", json::array({json::object()})}},
      json{{"blocks", {blk("TestSource", "s")}}, {"connectors", {con("s", 70000, "s", 0)}}},
      json{{"blocks", {blk("TestSource", "s"), blk("TestSink", "")}}},
      json{{"blocks", {blk("FromDump", "in", {{"filename", 3}})}}},
      json{{"blocks", {blk("FromDump", "in", {{"filename", "/nonexistent/x.pcap"}})}}},
  };
  for (const json& g : bad) {
    EXPECT_THROW(compile_graph(g, CompileOptions{}), openbox::ProtocolError) << g.dump();
  }
}

}  // namespace
