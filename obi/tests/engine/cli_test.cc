// The obi executable: run, bench, export-click and argument errors.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct Out {
  int code;
  std::string text;   // stdout + stderr
};

Out obi(const std::string& args) {
  std::string cmd = std::string(OBI_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) text.append(buf.data(), n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, text};
}

std::string pcap() { return std::string(OPENBOX_ROOT) + "/../shared/data/fw-4560.trace.pcap"; }

std::string write_graph(const std::string& name, const json& g) {
  std::string path = (fs::temp_directory_path() / ("obi_cli_" + std::to_string(getpid()) + "_" + name)).string();
  std::ofstream(path) << g.dump();
  return path;
}

json passthrough() {
  return {{"blocks", {{{"type", "FromDump"}, {"name", "in"}, {"config", {{"filename", pcap()}}}},
                      {{"type", "Discard"}, {"name", "out"}}}},
          {"connectors", {{{"src", "in"}, {"src_port", 0}, {"dst", "out"}, {"dst_port", 0}}}}};
}

TEST(Cli, RunPrintsSummary) {
  std::string g = write_graph("pt.json", passthrough());
  Out o = obi("run --graph " + g + " --workers 2");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("sources done"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("packets in 45607"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("count=45607"), std::string::npos) << o.text;
  fs::remove(g);
}

TEST(Cli, BenchJsonHasTheContractKeys) {
  std::string g = write_graph("ptb.json", passthrough());
  Out o = obi("bench --graph " + g + " --pcap " + pcap() + " --seconds 0.2 --json");
  ASSERT_EQ(o.code, 0) << o.text;
  json j = json::parse(o.text);
  for (const char* k : {"graph", "packets", "bytes", "seconds", "mpps", "gbps", "ns_p50", "ns_p99", "rss_mb", "workers"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_GT(j["packets"].get<uint64_t>(), 0u);
  EXPECT_LE(j["ns_p50"].get<double>(), j["ns_p99"].get<double>());
  fs::remove(g);
}

TEST(Cli, ExportClick) {
  json g = passthrough();
  g["blocks"].push_back({{"type", "HeaderClassifier"}, {"name", "fw"},
                         {"config", {{"match", {{{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", "[1:1023]"}}, json::object()}}}}});
  g["blocks"].push_back({{"type", "RegexClassifier"}, {"name", "rx"}, {"config", {{"pattern", {"abc"}}}}});
  g["blocks"].push_back({{"type", "ToDump"}, {"name", "dump"}, {"config", {{"filename", "/tmp/x.pcap"}}}});
  g["connectors"] = {{{"src", "in"}, {"dst", "fw"}}, {{"src", "fw"}, {"src_port", 0}, {"dst", "dump"}},
                     {{"src", "fw"}, {"src_port", 1}, {"dst", "rx"}}, {{"src", "rx"}, {"dst", "out"}}};
  std::string path = write_graph("click.json", g);
  Out o = obi("export-click --graph " + path);
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("IPClassifier(ip proto 6 and (dst tcp port >= 1 and dst tcp port <= 1023)"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("FromDump(\"" + pcap() + "\""), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("ToDump(\"/tmp/x.pcap\")"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("not expressible: rx (RegexClassifier)"), std::string::npos) << o.text;
  fs::remove(path);
}

TEST(Cli, BadArgumentsExitNonZeroWithOneLine) {
  for (std::string args : {"run", "run --graph", "run --graph /nonexistent.json", "run --graph x --workers zero",
                           "bench --graph x", "frobnicate", "run --bogus 1", "export-click"}) {
    Out o = obi(args);
    EXPECT_NE(o.code, 0) << args;
    EXPECT_EQ(std::count(o.text.begin(), o.text.end(), '\n'), 1) << args << ": " << o.text;
    EXPECT_EQ(o.text.rfind("obi", 0), 0u) << o.text;
  }
  std::string bad = write_graph("bad.json", json{{"blocks", {{{"type", "Nope"}, {"name", "n"}}}}});
  Out o = obi("run --graph " + bad);
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.text.find("UNSUPPORTED_BLOCK"), std::string::npos) << o.text;
  fs::remove(bad);
  for (std::string cmd : {"run --help", "bench --help", "export-click --help", "--help"}) {
    Out h = obi(cmd);
    EXPECT_EQ(h.code, 0) << cmd;
    EXPECT_NE(h.text.find("usage"), std::string::npos) << cmd;
  }
}

}  // namespace
