// Runs every shared graph vector (protocol/vectors/graphs/*.json) through compile_graph with
// the real blocks, as a SetProcessingGraphRequest reaches it: a valid graph compiles, an
// invalid one fails with exactly the error type and subtype the case names. The Java
// GraphChecker runs the same files (obc/api GraphVectorsTest), so the controller and the
// OBI agree on what a well-formed graph is. Sources are replaced by an element that opens
// nothing (no device or file is touched). A case may set "limits" (max_blocks, max_depth).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/graph.hh"
#include "openbox/error.hh"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

class QuietSource final : public obi::Element {
 public:
  uint16_t input_count() const override { return 0; }
  bool is_source() const override { return true; }
  bool poll(obi::Batch&, obi::Context&) override { return false; }
  void push(uint16_t, obi::Batch& batch, obi::Context& ctx, const obi::Outputs&) override { ctx.drop(batch); }
};

fs::path vectors_dir() { return fs::path(OPENBOX_ROOT) / "protocol" / "vectors" / "graphs"; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

obi::CompileOptions options(const json& c) {
  obi::CompileOptions o;
  const json limits = c.value("limits", json::object());
  if (limits.contains("max_blocks")) o.limits.max_blocks = limits["max_blocks"].get<std::size_t>();
  if (limits.contains("max_depth")) o.limits.max_depth = limits["max_depth"].get<std::size_t>();
  o.replace_source = [](const obi::BlockSpec&) -> std::unique_ptr<obi::Element> {
    return std::make_unique<QuietSource>();
  };
  return o;
}

}  // namespace

TEST(graph_vectors, EveryGraphVector) {
  std::vector<fs::path> files;
  if (fs::exists(vectors_dir()))
    for (const auto& e : fs::directory_iterator(vectors_dir()))
      if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no graph vectors under " << vectors_dir();
  int valid = 0, invalid = 0;
  for (const auto& path : files) {
    json cases = json::parse(slurp(path), nullptr, false);
    ASSERT_TRUE(cases.is_array()) << path << ": not an array of cases";
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const json& c = cases[i];
      const std::string where = path.filename().string() + "[" + std::to_string(i) + "] " + c.value("description", "");
      const json& expect = c["expect"];
      const bool want_valid = expect == "valid";
      (want_valid ? valid : invalid)++;
      try {
        obi::compile_graph(c["graph"], options(c));
        EXPECT_TRUE(want_valid) << where << ": compiled, expected " << expect.dump();
      } catch (const openbox::ProtocolError& e) {
        if (want_valid) {
          ADD_FAILURE() << where << ": refused: " << e.what();
          continue;
        }
        EXPECT_EQ(std::string(openbox::to_string(e.type())), expect.value("error_type", ""))
            << where << ": " << e.what();
        EXPECT_EQ(std::string(openbox::to_string(e.subtype())), expect.value("error_subtype", ""))
            << where << ": " << e.what();
      }
    }
  }
  std::printf("C++ graph vectors: %d run (%d valid, %d invalid)\n", valid + invalid, valid, invalid);
}
