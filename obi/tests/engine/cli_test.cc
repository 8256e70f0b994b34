// The obi executable: run, bench, export-click and argument errors.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct Out {
  int code;
  std::string text;  // stdout + stderr
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
  return {{"blocks",
           {{{"type", "FromDump"}, {"name", "in"}, {"config", {{"filename", pcap()}}}},
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
  for (const char* k :
       {"graph", "packets", "bytes", "seconds", "mpps", "gbps", "ns_p50", "ns_p99", "rss_mb", "workers"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_GT(j["packets"].get<uint64_t>(), 0u);
  EXPECT_LE(j["ns_p50"].get<double>(), j["ns_p99"].get<double>());
  fs::remove(g);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

json blk(const std::string& type, const std::string& name, json config = json::object()) {
  return {{"type", type}, {"name", name}, {"config", config}};
}
json con(const std::string& s, int sp, const std::string& d, int dp = 0) {
  return {{"src", s}, {"src_port", sp}, {"dst", d}, {"dst_port", dp}};
}

TEST(Cli, ExportClickMapsEveryExpressibleBlock) {
  json g = passthrough();
  auto& b = g["blocks"];
  b.push_back(blk("HeaderClassifier", "fw",
                  {{"match", {{{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", "[1:1023]"}}, json::object()}}}));
  b.push_back(blk("RegexClassifier", "rx", {{"pattern", {"abc", "def"}}}));
  b.push_back(blk("ToDump", "dump", {{"filename", "/tmp/x.pcap"}}));
  b.push_back(blk("FromDevice", "nic", {{"devname", "eth1"}}));
  b.push_back(blk("ToDevice", "tx", {{"devname", "eth2"}}));
  b.push_back(blk("DecIpTtl", "ttl"));
  b.push_back(blk("Queue", "q", {{"capacity", 77}}));
  b.push_back(blk("FrontDropQueue", "fq", {{"capacity", 88}}));
  b.push_back(blk("PpsShaper", "pps", {{"rate", 1000}, {"capacity", 50}}));
  b.push_back(blk("BpsShaper", "bps", {{"rate", 125000}}));
  b.push_back(blk("VlanEncapsulate", "tag", {{"vlan_vid", 10}, {"vlan_pcp", 3}}));
  b.push_back(blk("VlanDecapsulate", "untag"));
  b.push_back(blk("ContentClassifier", "cc", {{"pattern", {"12/0806 20/0001", "-"}}}));
  b.push_back(blk("PpsRateClassifier", "prc", {{"rate", {100, 1000}}}));
  b.push_back(blk("BpsRateClassifier", "brc", {{"rate", {"8 kbps"}}}));
  b.push_back(blk("Ipv4AddressTranslator", "nat",
                  {{"input_spec", {"pattern 1.2.3.4 1024-65535# - - 0 1", "discard"}}, {"udp_timeout", 30}}));
  b.push_back(
      blk("NetworkDirectionSwap", "mirror", {{"ethernet", true}, {"ipv4", true}, {"tcp", true}, {"udp", true}}));
  b.push_back(blk("NetworkHeaderFieldsRewriter", "rw",
                  {{"eth_dst", "02:00:00:00:00:09"}, {"ipv4_dst", "10.9.9.9"}, {"ipv4_ttl", 9}}));
  b.push_back(blk("Log", "log", {{"message", "seen"}}));
  b.push_back(blk("Alert", "alert", {{"alerts", {{{"message", "bad"}, {"severity", 3}}}}}));
  b.push_back(blk("FlowTracker", "flows"));
  g["connectors"] = {con("in", 0, "fw"),      con("fw", 0, "dump"),    con("fw", 1, "rx"),     con("rx", 0, "out"),
                     con("rx", 1, "log"),     con("nic", 0, "ttl"),    con("ttl", 0, "q"),     con("q", 0, "fq"),
                     con("fq", 0, "pps"),     con("pps", 0, "bps"),    con("bps", 0, "tag"),   con("tag", 0, "untag"),
                     con("untag", 0, "cc"),   con("cc", 0, "prc"),     con("cc", 1, "brc"),    con("prc", 0, "nat", 0),
                     con("prc", 1, "nat", 1), con("prc", 2, "mirror"), con("brc", 0, "rw"),    con("brc", 1, "log"),
                     con("nat", 0, "alert"),  con("nat", 1, "flows"),  con("mirror", 0, "tx"), con("rw", 0, "tx"),
                     con("log", 0, "tx"),     con("alert", 0, "tx"),   con("flows", 0, "tx")};
  std::string path = write_graph("click.json", g);
  Out o = obi("export-click --graph " + path);
  EXPECT_EQ(o.code, 3) << o.text;  // rx is not expressible
  const std::string& t = o.text;
  for (const char* want :
       {// declarations
        "IPClassifier(ip proto 6 and (dst tcp port >= 1 and dst tcp port <= 1023)", "dump :: ToDump(\"/tmp/x.pcap\");",
        "out :: Discard;", "nic :: FromDevice(eth1, SNIFFER true, PROMISC false);",
        "tx_q :: Queue -> tx :: ToDevice(eth2);", "ttl :: OBDecIpTtl_ttl;", "d4 :: DecIPTTL", "d6 :: DecIP6HLIM",
        "q_q :: Queue(77) -> q :: Unqueue;", "fq_q :: FrontDropQueue(88) -> fq :: Unqueue;",
        "pps_q :: Queue(50) -> pps :: RatedUnqueue(1000);",
        "bps_q :: Queue(1000) -> bps :: BandwidthRatedUnqueue(125000Bps);",
        "tag :: VLANEncap(VLAN_TCI 24586, ETHERTYPE 0x8100);", "untag :: VLANDecap;",
        "cc :: Classifier(12/0806 20/0001, -);", "prc :: Meter(100, 1000);", "brc :: BandwidthMeter(1000Bps);",
        "rw :: IPRewriter(pattern 1.2.3.4 1024-65535# - - 0 1,\n      discard,\n      UDP_TIMEOUT 30);",
        "input[1] -> Strip(14) -> CheckIPHeader -> [1]rw;", "rw[1] -> Unstrip(14) -> [1]output;",
        "mirror_e :: EtherMirror -> mirror :: OBIpMirror_mirror;", "MarkIPHeader -> IPMirror -> Unstrip(14)",
        "StoreEtherAddress(02:00:00:00:00:09, dst) -> OBSetIp_rw",
        "StoreIPAddress(10.9.9.9, dst) -> StoreData(8, \\<09>)", "log :: Print(\"LOG seen\");",
        "alert :: Print(\"ALERT bad\");", "MarkIPHeader -> AggregateIPFlows",
        "rx :: Null;   // NOT EXPRESSIBLE: RegexClassifier",
        // connections
        "in [0] -> [0] fw;", "fw [0] -> [0] dump;", "fw [1] -> [0] rx;", "rx [0] -> [0] out;", "// rx [1] -> [0] log;",
        "ttl [0] -> [0] q_q;", "q [0] -> [0] fq_q;", "fq [0] -> [0] pps_q;", "pps [0] -> [0] bps_q;",
        "cc [1] -> [0] brc;", "prc [1] -> [1] nat;", "prc [2] -> [0] mirror_e;", "mirror [0] -> [0] tx_q;",
        "ttl [1] -> unconnected;", "unconnected :: Discard;",
        // comments and summary
        "// not expressible: rx (RegexClassifier)", "// approximated: alert (Alert)",
        "// approximated: flows (FlowTracker)",
        "obi export-click: 1 block(s) not expressible in Click: rx (RegexClassifier)"})
    EXPECT_NE(t.find(want), std::string::npos) << want << "\n" << t;
  EXPECT_EQ(count(t, " :: Null;"), 1u) << t;
  EXPECT_EQ(count(t, "Idle ->"), 0u) << t;  // every input is fed
  fs::remove(path);
}

TEST(Cli, ExportClickNamesInexpressibleConfigsAndExitsZeroWhenAllExpressed) {
  json ok = passthrough();
  ok["blocks"].push_back(blk("DecIpTtl", "ttl", {{"active", false}}));
  ok["blocks"].push_back(blk("NetworkDirectionSwap", "swap", {{"ethernet", true}}));
  ok["connectors"] = {con("in", 0, "ttl"), con("ttl", 0, "swap"), con("swap", 0, "out")};
  std::string p1 = write_graph("click_ok.json", ok);
  Out o = obi("export-click --graph " + p1);
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("// Every block is expressed."), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("ttl :: Null;"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("swap :: EtherMirror;"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("not expressible"), std::string::npos) << o.text;

  json bad = passthrough();
  bad["blocks"].push_back(blk("NetworkDirectionSwap", "swap", {{"ipv4", true}}));  // ports not swapped
  bad["blocks"].push_back(blk("NetworkHeaderFieldsRewriter", "ports", {{"tcp_dst", 8080}}));
  bad["blocks"].push_back(
      blk("HeaderClassifier", "range", {{"match", {{{"ETH_TYPE", "0x0800"}, {"IPV4_SRC", "[10.0.0.1:10.0.0.9]"}}}}}));
  bad["blocks"].push_back(blk("SessionStore", "sess"));
  bad["blocks"].push_back(blk("HeaderPayloadClassifier", "hp", {{"match", json::array()}}));
  bad["connectors"] = {con("in", 0, "swap"), con("swap", 0, "ports"), con("ports", 0, "range"), con("range", 0, "sess"),
                       con("sess", 0, "hp"), con("hp", 0, "out"),     con("hp", 3, "out")};
  std::string p2 = write_graph("click_bad.json", bad);
  o = obi("export-click --graph " + p2);
  EXPECT_EQ(o.code, 3) << o.text;
  for (const char* n : {"swap (NetworkDirectionSwap)", "ports (NetworkHeaderFieldsRewriter)",
                        "range (HeaderClassifier)", "sess (SessionStore)", "hp (HeaderPayloadClassifier)"}) {
    EXPECT_NE(o.text.find(std::string("// not expressible: ") + n), std::string::npos) << n << "\n" << o.text;
  }
  EXPECT_NE(o.text.find("obi export-click: 5 block(s) not expressible"), std::string::npos) << o.text;
  EXPECT_EQ(count(o.text, " :: Null;   // NOT EXPRESSIBLE"), 5u) << o.text;
  EXPECT_NE(o.text.find("// hp [3] -> [0] out;"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("\nhp [0] -> [0] out;"), std::string::npos) << o.text;
  fs::remove(p1);
  fs::remove(p2);
}

// The benchmark graphs: the firewall is expressed in full (one IPClassifier pattern and one
// connection per rule); the IPS's payload classifier is not.
TEST(Cli, ExportClickBenchGraphs) {
  std::string dir = (fs::temp_directory_path() / ("obi_cli_graphs_" + std::to_string(getpid()))).string();
  std::string cmd = "python3 " + std::string(OPENBOX_ROOT) + "/obi/bench/make_graphs.py --data " +
                    std::string(OPENBOX_ROOT) + "/../shared/data --out " + dir + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  json fw = json::parse(std::ifstream(dir + "/firewall.json"));
  size_t rules = fw["blocks"][1]["config"]["match"].size();
  ASSERT_GT(rules, 4000u);
  Out o = obi("export-click --graph " + dir + "/firewall.json");
  EXPECT_EQ(o.code, 0) << o.text.substr(0, 2000);
  EXPECT_EQ(count(o.text, "-> Unstrip(14) -> ["), rules);
  std::set<std::string> lines;
  std::istringstream in(o.text);
  for (std::string l; std::getline(in, l);) lines.insert(l);
  size_t conns = 0;
  for (const json& c : fw["connectors"]) {
    std::string line = c["src"].get<std::string>() + " [" + std::to_string(c["src_port"].get<int>()) + "] -> [" +
                       std::to_string(c["dst_port"].get<int>()) + "] " + c["dst"].get<std::string>() + ";";
    conns += lines.count(line);
  }
  EXPECT_EQ(conns, fw["connectors"].size());
  EXPECT_NE(o.text.find("in :: FromDump("), std::string::npos);
  EXPECT_NE(o.text.find("fw :: OBHeaderClassifier_fw;"), std::string::npos);

  Out f = obi("export-click --graph " + dir + "/fw_ips.json");
  EXPECT_EQ(f.code, 3);
  EXPECT_NE(f.text.find("// not expressible: ips (HeaderPayloadClassifier)"), std::string::npos);
  EXPECT_NE(f.text.find("obi export-click: 1 block(s) not expressible in Click: ips (HeaderPayloadClassifier)"),
            std::string::npos);
  EXPECT_NE(f.text.find("alert :: Print(\"ALERT "), std::string::npos);
  EXPECT_EQ(count(f.text, "-> Unstrip(14) -> ["), rules);
  EXPECT_NE(f.text.find("\nips [0] -> [0] alert;"), std::string::npos);
  EXPECT_NE(f.text.find("// ips [1] -> [0] alert;"), std::string::npos);
  fs::remove_all(dir);
}

// Records in a classic pcap file (either byte order).
size_t pcap_records(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (b.size() < 24) return 0;
  uint32_t magic;
  std::memcpy(&magic, b.data(), 4);
  bool swap = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
  size_t n = 0;
  for (size_t off = 24; off + 16 <= b.size(); ++n) {
    uint32_t incl;
    std::memcpy(&incl, b.data() + off + 8, 4);
    if (swap) incl = __builtin_bswap32(incl);
    off += 16 + incl;
  }
  return n;
}

TEST(Cli, RunWithASlowShaperWritesEveryPacket) {
  // At 10 packets/s almost every packet is still waiting in the shaper when the trace
  // ends: obi run hands them on to ToDump before it exits.
  std::string in = std::string(OPENBOX_ROOT) + "/../shared/data/pcap/pcapplusplus-650HttpResponses.pcap";
  std::string out = (fs::temp_directory_path() / ("obi_cli_" + std::to_string(getpid()) + "_shaped.pcap")).string();
  json g = {{"blocks",
             {{{"type", "FromDump"}, {"name", "in"}, {"config", {{"filename", in}}}},
              {{"type", "PpsShaper"}, {"name", "shape"}, {"config", {{"rate", 10}, {"capacity", 5000}}}},
              {{"type", "ToDump"}, {"name", "dump"}, {"config", {{"filename", out}}}}}},
            {"connectors", {{{"src", "in"}, {"dst", "shape"}}, {{"src", "shape"}, {"dst", "dump"}}}}};
  std::string path = write_graph("shaped.json", g);
  Out o = obi("run --graph " + path + " --workers 2");
  ASSERT_EQ(o.code, 0) << o.text;
  size_t n = pcap_records(in);
  ASSERT_GT(n, 600u);
  EXPECT_EQ(pcap_records(out), n) << o.text;
  EXPECT_NE(o.text.find("packets in " + std::to_string(n)), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("out " + std::to_string(n)), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("dropped 0"), std::string::npos) << o.text;
  fs::remove(path);
  fs::remove(out);
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
