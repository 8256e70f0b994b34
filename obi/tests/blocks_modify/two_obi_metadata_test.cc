// Metadata carried between two OBI processes (spec 1.3.1, 5.39-5.42): the first OBI writes
// per-packet metadata and encapsulates it in NSH into a pcap file (ToDump); the second,
// a separate `obi run`, reads that file (FromDump), decapsulates and classifies on the
// metadata the first wrote. Real executable, real trace.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using json = nlohmann::json;
using Frame = std::vector<uint8_t>;

namespace {

std::vector<Frame> read_pcap(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<Frame> out;
  if (all.size() < 24) return out;
  auto u32 = [&](size_t o) {
    uint32_t v;
    std::memcpy(&v, all.data() + o, 4);
    return v;
  };
  for (size_t off = 24; off + 16 <= all.size();) {
    uint32_t cap = u32(off + 8);
    if (off + 16 + cap > all.size()) break;
    out.emplace_back(all.begin() + off + 16, all.begin() + off + 16 + cap);
    off += 16 + cap;
  }
  return out;
}

int run_obi(const std::string& graph_path, std::string& text) {
  std::string cmd = std::string(OBI_BINARY) + " run --graph " + graph_path + " --workers 1 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) text.append(buf.data(), n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

json block(const std::string& type, const std::string& name, const json& config) {
  return {{"type", type}, {"name", name}, {"config", config}};
}
json edge(const std::string& src, int port, const std::string& dst) {
  return {{"src", src}, {"src_port", port}, {"dst", dst}, {"dst_port", 0}};
}

}  // namespace

TEST(TwoObis, TheSecondClassifiesOnMetadataTheFirstWrote) {
  const std::string in = std::string(OPENBOX_ROOT) + "/../shared/data/pcap/pcapplusplus-650HttpResponses.pcap";
  const fs::path dir = fs::temp_directory_path() / ("obi_two_" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto at = [&](const char* n) { return (dir / n).string(); };

  // OBI 1: packets from 192/8 get {"from": "net192", "rank": 1}, the others
  // {"from": "elsewhere", "rank": 2}; every packet leaves NSH-encapsulated.
  json g1 = {{"blocks",
              {block("FromDump", "in", {{"filename", in}}),
               block("HeaderClassifier", "split",
                     {{"match", {{{"ETH_TYPE", "0x0800"}, {"IPV4_SRC", "192.0.0.0/8"}}, json::object()}}}),
               block("WriteMetadata", "mark192", {{"values", {{"from", "net192"}, {"rank", 1}}}}),
               block("WriteMetadata", "markother", {{"values", {{"from", "elsewhere"}, {"rank", 2}}}}),
               block("EncapsulateMetadata", "nsh", {{"spi", 4242}, {"si", 200}}),
               block("ToDump", "wire", {{"filename", at("wire.pcap")}})}},
             {"connectors",
              {edge("in", 0, "split"), edge("split", 0, "mark192"), edge("split", 1, "markother"),
               edge("mark192", 0, "nsh"), edge("markother", 0, "nsh"), edge("nsh", 0, "wire")}}};
  // OBI 2: decapsulate, then output 1 for "net192", 2 for "elsewhere", 0 for neither.
  json g2 = {{"blocks",
              {block("FromDump", "in", {{"filename", at("wire.pcap")}}),
               block("DecapsulateMetadata", "denshed", json::object()),
               block("ReadMetadata", "by_origin", {{"key", "from"}, {"values", {"net192", "elsewhere"}}}),
               block("ToDump", "none", {{"filename", at("none.pcap")}}),
               block("ToDump", "net192", {{"filename", at("net192.pcap")}}),
               block("ToDump", "other", {{"filename", at("other.pcap")}})}},
             {"connectors",
              {edge("in", 0, "denshed"), edge("denshed", 0, "by_origin"), edge("by_origin", 0, "none"),
               edge("by_origin", 1, "net192"), edge("by_origin", 2, "other")}}};
  std::ofstream(at("g1.json")) << g1.dump();
  std::ofstream(at("g2.json")) << g2.dump();

  std::string out1, out2;
  ASSERT_EQ(run_obi(at("g1.json"), out1), 0) << out1;
  ASSERT_EQ(run_obi(at("g2.json"), out2), 0) << out2;

  std::vector<Frame> input = read_pcap(in), wire = read_pcap(at("wire.pcap"));
  ASSERT_GT(input.size(), 600u);
  ASSERT_EQ(wire.size(), input.size()) << out1;
  for (const Frame& w : wire) {
    ASSERT_GE(w.size(), 22u);
    EXPECT_EQ(w[12] << 8 | w[13], 0x894f);                         // NSH EtherType
    EXPECT_EQ(uint32_t(w[18]) << 16 | w[19] << 8 | w[20], 4242u);  // SPI
    EXPECT_EQ(w[21], 200);                                         // SI
  }
  std::vector<Frame> want192, want_other;
  for (const Frame& f : input) (f[26] == 192 ? want192 : want_other).push_back(f);
  ASSERT_FALSE(want192.empty());
  ASSERT_FALSE(want_other.empty());
  EXPECT_TRUE(read_pcap(at("none.pcap")).empty()) << out2;
  EXPECT_EQ(read_pcap(at("net192.pcap")), want192) << out2;  // original frames, in order
  EXPECT_EQ(read_pcap(at("other.pcap")), want_other) << out2;
  fs::remove_all(dir);
}
