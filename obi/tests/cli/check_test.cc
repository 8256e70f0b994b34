// obi check: every block built as SetProcessingGraph would, every failure reported.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct Out {
  int code;
  std::string text;  // stdout only (the JSON report)
};

Out obi(const std::string& args) {
  std::string cmd = std::string(OBI_BINARY) + " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) text.append(buf.data(), n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, text};
}

std::string write_graph(const std::string& name, const json& g) {
  std::string path = (fs::temp_directory_path() / ("obi_check_" + std::to_string(getpid()) + "_" + name)).string();
  std::ofstream(path) << g.dump();
  return path;
}

json pattern(const std::string& re) { return {{"type", "PayloadPattern"}, {"pattern", re}, {"is_regex", true}}; }

json rule(const std::string& re) {
  return {{"header_match", {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}}}, {"payload_match", json::array({pattern(re)})}};
}

// FromDevice -> HeaderPayloadClassifier (given rules + catch-all) -> ToDevice
json graph(const json& rules) {
  json match = rules;
  match.push_back({{"header_match", json::object()}, {"payload_match", json::array()}});
  json connectors = json::array({{{"src", "in"}, {"src_port", 0}, {"dst", "sig"}, {"dst_port", 0}}});
  for (std::size_t i = 0; i < match.size(); ++i)
    connectors.push_back({{"src", "sig"}, {"src_port", i}, {"dst", "out"}, {"dst_port", 0}});
  return {{"blocks",
           {{{"type", "FromDevice"}, {"name", "in"}, {"config", {{"devname", "no-such-device"}}}},
            {{"type", "HeaderPayloadClassifier"}, {"name", "sig"}, {"config", {{"match", match}}}},
            {{"type", "ToDevice"}, {"name", "out"}, {"config", {{"devname", "no-such-device"}}}}}},
          {"connectors", connectors}};
}

TEST(Check, AGoodGraphBuildsWithoutOpeningItsDevices) {
  std::string g = write_graph("good.json", graph(json::array({rule("GET /admin"), rule("passw(or)?d")})));
  Out o = obi("check --json --graph " + g);
  EXPECT_EQ(o.code, 0) << o.text;
  json r = json::parse(o.text);
  EXPECT_TRUE(r["ok"].get<bool>());
  EXPECT_EQ(r["blocks"], 3);
  EXPECT_TRUE(r["errors"].empty());
  fs::remove(g);
}

TEST(Check, EveryRuleHyperscanRefusesIsReportedWithItsIndex) {
  std::string g =
      write_graph("bad.json", graph(json::array({rule("ok"), rule("\\Xabc"), rule("fine"), rule("a{70000}")})));
  Out o = obi("check --json --graph " + g);
  EXPECT_EQ(o.code, 1) << o.text;
  json r = json::parse(o.text);
  EXPECT_FALSE(r["ok"].get<bool>());
  ASSERT_EQ(r["errors"].size(), 2u) << o.text;
  EXPECT_EQ(r["errors"][0]["block"], "sig");
  EXPECT_EQ(r["errors"][0]["rule"], 1);
  EXPECT_EQ(r["errors"][0]["type"], "BAD_REQUEST");
  EXPECT_EQ(r["errors"][0]["subtype"], "BAD_PAYLOAD_MATCH");
  EXPECT_NE(r["errors"][0]["message"].get<std::string>().find("\\X"), std::string::npos);
  EXPECT_EQ(r["errors"][1]["rule"], 3);
  fs::remove(g);
}

TEST(Check, EveryFailingBlockIsReportedNotOnlyTheFirst) {
  json g = graph(json::array({rule("ok")}));
  g["blocks"].push_back({{"type", "NoSuchBlock"}, {"name", "x"}});
  g["blocks"].push_back({{"type", "Discard"}, {"name", "sig"}});
  g["blocks"].push_back({{"type", "HeaderClassifier"},
                         {"name", "hc"},
                         {"config", {{"match", json::array({{{"IPV4_SRC", "10.300.0.1"}}})}}}});
  std::string path = write_graph("blocks.json", g);
  Out o = obi("check --json --graph " + path);
  EXPECT_EQ(o.code, 1) << o.text;
  json r = json::parse(o.text);
  ASSERT_EQ(r["errors"].size(), 3u) << o.text;
  EXPECT_EQ(r["errors"][0]["subtype"], "UNSUPPORTED_BLOCK");
  EXPECT_EQ(r["errors"][1]["subtype"], "BAD_BLOCK");  // duplicate name
  EXPECT_EQ(r["errors"][2]["block"], "hc");
  EXPECT_EQ(r["errors"][2]["subtype"], "BAD_HEADER_MATCH");
  fs::remove(path);
}

TEST(Check, UsageErrors) {
  EXPECT_EQ(obi("check").code, 2);
  EXPECT_EQ(obi("check --graph /nonexistent.json").code, 2);
  EXPECT_EQ(obi("check --graph x --bogus").code, 2);
  // A graph file is read with the request body's bounded parse: invalid JSON and a file
  // nested far too deep are usage errors (exit 2), not a crash of the commands that walk it.
  const std::string bad = write_graph("bad.json", json::object());
  std::ofstream(bad) << "{\"blocks\": [";
  EXPECT_EQ(obi("check --graph " + bad).code, 2);
  const std::string deep = write_graph("deep.json", json::object());
  {
    const std::size_t d = 200000;
    std::ofstream(deep) << R"({"blocks":[{"type":"Alert","name":"a","config":{"alerts":)" << std::string(d, '[')
                        << std::string(d, ']') << R"(}}],"connectors":[]})";
  }
  for (const char* cmd : {"check", "export-click", "run"}) {
    SCOPED_TRACE(cmd);
    EXPECT_EQ(obi(std::string(cmd) + " --graph " + deep).code, 2);
  }
  const std::string err = std::string(OBI_BINARY) + " check --graph " + deep + " 2>&1 >/dev/null";
  FILE* p = popen(err.c_str(), "r");
  std::array<char, 512> buf{};
  const std::size_t n = fread(buf.data(), 1, buf.size() - 1, p);
  pclose(p);
  EXPECT_NE(std::string(buf.data(), n).find("nests arrays/objects deeper than 64 levels"), std::string::npos)
      << std::string(buf.data(), n);
  fs::remove(bad);
  fs::remove(deep);
}

}  // namespace
