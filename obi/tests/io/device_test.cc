// FromDevice / ToDevice end to end: AF_PACKET over a veth pair inside a network namespace
// created here, and DPDK through a net_ring virtual device (no NIC, no hugepages).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "engine/runtime.hh"
#include "engine/testing.hh"
#include "io/pcap.hh"

using namespace obi;
using namespace obi::testing;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string tmp(const std::string& name) {
  return (fs::temp_directory_path() / ("obi_dev_" + std::to_string(getpid()) + "_" + name)).string();
}
int sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

// Frames with a marker payload, written to a pcap for FromDump.
std::set<std::string> write_frames(const std::string& path, int n) {
  std::set<std::string> frames;
  io::PcapWriter w(path);
  for (int i = 0; i < n; ++i) {
    Bytes b = udp4("192.0.2.1", "192.0.2." + std::to_string(2 + i % 50), 4000 + i, 5000, "OBI-TEST-" + std::to_string(i));
    w.write(b.data(), static_cast<uint32_t>(b.size()), 1000ull * i);
    frames.insert(std::string(b.begin(), b.end()));
  }
  return frames;
}
std::set<std::string> read_marked(const std::string& path) {
  std::set<std::string> out;
  io::PcapReader r(path);
  uint64_t off = r.begin();
  io::PcapRecord rec;
  while (r.next(off, rec)) {
    std::string s(reinterpret_cast<const char*>(rec.data), rec.caplen);
    if (s.find("OBI-TEST-") != std::string::npos) out.insert(s);
  }
  return out;
}
json loop_graph(const std::string& in, const std::string& tx, const std::string& rx, const std::string& out) {
  return {{"blocks", {{{"type", "FromDump"}, {"name", "in"}, {"config", {{"filename", in}}}},
                      {{"type", "ToDevice"}, {"name", "tx"}, {"config", {{"devname", tx}}}},
                      {{"type", "FromDevice"}, {"name", "rx"}, {"config", {{"devname", rx}, {"promisc", true}}}},
                      {{"type", "ToDump"}, {"name", "out"}, {"config", {{"filename", out}}}}}},
          {"connectors", {{{"src", "in"}, {"dst", "tx"}}, {{"src", "rx"}, {"dst", "out"}}}}};
}
void wait_for(Runtime& rt, const std::string& block, uint64_t n) {
  for (int i = 0; i < 3000 && rt.read(block, "count").get<uint64_t>() < n; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// Runs the test body inside a fresh network namespace holding veth pair va <-> vb.
class VethNamespace {
 public:
  VethNamespace() : name_("obi_t" + std::to_string(getpid())) {
    // Namespaces left by an earlier run that was killed mid-test (its pid is gone).
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/var/run/netns", ec)) {
      std::string n = e.path().filename().string();
      if (n.rfind("obi_t", 0) == 0 && n.size() > 5 && n.find_first_not_of("0123456789", 5) == std::string::npos &&
          !fs::exists("/proc/" + n.substr(5)))
        sh("ip netns delete " + n);
    }
    if (sh("ip netns add " + name_) != 0) return;
    std::string ex = "ip netns exec " + name_ + " ";
    ok_ = sh(ex + "ip link add va type veth peer name vb") == 0 &&
          sh(ex + "sysctl -w net.ipv6.conf.all.disable_ipv6=1") == 0 &&
          sh(ex + "ip link set va up") == 0 && sh(ex + "ip link set vb up") == 0;
    original_ = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int target = open(("/var/run/netns/" + name_).c_str(), O_RDONLY | O_CLOEXEC);
    ok_ = ok_ && original_ >= 0 && target >= 0 && setns(target, CLONE_NEWNET) == 0;
    if (target >= 0) close(target);
  }
  ~VethNamespace() {
    if (original_ >= 0) { setns(original_, CLONE_NEWNET); close(original_); }
    sh("ip netns delete " + name_);
  }
  bool ok() const { return ok_; }

 private:
  std::string name_;
  int original_ = -1;
  bool ok_ = false;
};

TEST(Device, AfPacketVethEndToEnd) {
  VethNamespace ns;
  ASSERT_TRUE(ns.ok()) << "cannot create a network namespace with a veth pair (needs root and iproute2)";
  std::string in = tmp("veth_in.pcap"), out = tmp("veth_out.pcap");
  auto sent = write_frames(in, 500);
  {
    RuntimeOptions o;
    o.workers = 2;
    Runtime rt(o);
    rt.set_graph(loop_graph(in, "va", "vb", out));
    rt.start();
    wait_for(rt, "rx", 500);
    rt.stop();
    EXPECT_EQ(rt.read("tx", "count").get<uint64_t>(), 500u);
    EXPECT_GE(rt.read("rx", "count").get<uint64_t>(), 500u);
    EXPECT_TRUE(rt.read("rx", "drops").is_number_unsigned());
    EXPECT_TRUE(rt.read("rx", "rate").is_number());
  }
  EXPECT_EQ(read_marked(out), sent);
  fs::remove(in);
  fs::remove(out);
}

TEST(Device, MissingInterfaceIsBadBlock) {
  RuntimeOptions o;
  o.workers = 1;
  Runtime rt(o);
  try {
    rt.set_graph(loop_graph(tmp("none.pcap"), "no-such-if0", "no-such-if1", tmp("none_out.pcap")));
    FAIL();
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_BLOCK);
  }
}

TEST(Device, DpdkRingVdevEndToEnd) {
  std::string in = tmp("dpdk_in.pcap"), out = tmp("dpdk_out.pcap");
  auto sent = write_frames(in, 300);
  {
    RuntimeOptions o;
    o.workers = 1;
    o.eal_args = {"--no-huge", "--no-pci", "-m", "512", "--vdev", "net_ring0", "--no-shconf",
                  "--file-prefix", "obi_test_" + std::to_string(getpid()), "--log-level", "*:error"};
    Runtime rt(o);
    // A port that does not exist is refused when the graph is set.
    EXPECT_THROW(rt.set_graph(loop_graph(in, "dpdk:7", "dpdk:7", out)), openbox::ProtocolError);
    rt.set_graph(loop_graph(in, "dpdk:0", "dpdk:0", out));   // net_ring0: what is sent comes back
    rt.start();
    wait_for(rt, "rx", 300);
    rt.stop();
    EXPECT_EQ(rt.read("tx", "count").get<uint64_t>(), 300u);
    EXPECT_EQ(rt.read("rx", "count").get<uint64_t>(), 300u);
  }
  EXPECT_EQ(read_marked(out), sent);
  fs::remove(in);
  fs::remove(out);
}

}  // namespace
