// FromDevice / ToDevice end to end: AF_PACKET over a veth pair inside a network namespace
// created here, and DPDK through a net_ring virtual device (no NIC, no hugepages).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include "engine/runtime.hh"
#include "engine/testing.hh"

#include "engine/pool.hh"
#include "io/afpacket.hh"
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
    Bytes b =
        udp4("192.0.2.1", "192.0.2." + std::to_string(2 + i % 50), 4000 + i, 5000, "OBI-TEST-" + std::to_string(i));
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
  return {{"blocks",
           {{{"type", "FromDump"}, {"name", "in"}, {"config", {{"filename", in}}}},
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
          sh(ex + "sysctl -w net.ipv6.conf.all.disable_ipv6=1") == 0 && sh(ex + "ip link set va up") == 0 &&
          sh(ex + "ip link set vb up") == 0;
    original_ = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int target = open(("/var/run/netns/" + name_).c_str(), O_RDONLY | O_CLOEXEC);
    ok_ = ok_ && original_ >= 0 && target >= 0 && setns(target, CLONE_NEWNET) == 0;
    if (target >= 0) close(target);
  }
  ~VethNamespace() {
    if (original_ >= 0) {
      setns(original_, CLONE_NEWNET);
      close(original_);
    }
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
    // the TX ring: one sendto per batch, so at most one call per packet and at least one
    // per 32 packets
    uint64_t calls = rt.read("tx", "send_calls").get<uint64_t>();
    EXPECT_GE(calls, 500u / kBatchSize);
    EXPECT_LE(calls, 500u);
    EXPECT_GE(rt.read("rx", "count").get<uint64_t>(), 500u);
    EXPECT_TRUE(rt.read("rx", "drops").is_number_unsigned());
    EXPECT_TRUE(rt.read("rx", "rate").is_number());
  }
  EXPECT_EQ(read_marked(out), sent);
  fs::remove(in);
  fs::remove(out);
}

// A FromDevice rebuilt at a swap (same name and interface, promisc changed) takes over its
// predecessor's ring: frames that arrived before the swap, not yet read (no worker runs),
// are read by the new graph, once each.
TEST(Device, RebuiltFromDeviceKeepsTheFramesInItsRing) {
  VethNamespace ns;
  ASSERT_TRUE(ns.ok()) << "cannot create a network namespace with a veth pair (needs root and iproute2)";
  std::string out = tmp("rebuilt_out.pcap");
  auto graph = [&](bool promisc) {
    return json{{"blocks",
                 {{{"type", "FromDevice"}, {"name", "rx"}, {"config", {{"devname", "vb"}, {"promisc", promisc}}}},
                  {{"type", "ToDump"}, {"name", "out"}, {"config", {{"filename", out}}}}}},
                {"connectors", {{{"src", "rx"}, {"dst", "out"}}}}};
  };
  std::set<std::string> sent;
  {
    RuntimeOptions o;
    o.workers = 1;
    Runtime rt(o);
    rt.set_graph(graph(false));  // the socket and its ring are open from here on
    std::set<std::string> batch1, batch2;
    auto send = [&](int from, int n) {
      io::AfPacketTx tx;
      tx.open("va");
      for (int i = from; i < from + n; ++i) {
        Bytes b = udp4("192.0.2.1", "192.0.2.9", 4000 + i, 5000, "OBI-TEST-" + std::to_string(i));
        Batch one;
        PacketPool pool(1);
        Packet* p = pool.alloc();
        std::memcpy(p->data, b.data(), b.size());
        p->len = static_cast<uint32_t>(b.size());
        one.add(p);
        ASSERT_EQ(tx.send(one), 1u);
        pool.free(p);
        sent.insert(std::string(b.begin(), b.end()));
      }
    };
    send(0, 100);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // in the ring, blocks retired
    rt.set_graph(graph(true));                                   // FromDevice rebuilt: promisc changed
    send(100, 100);
    rt.set_graph(graph(false));  // and once more
    rt.start();
    wait_for(rt, "rx", 200);
    rt.stop();
    EXPECT_EQ(rt.read("rx", "drops").get<uint64_t>(), 0u);
  }
  EXPECT_EQ(read_marked(out), sent);
  fs::remove(out);
}

// The interface's promiscuity count (ip -d link), -1 when it cannot be read.
int promiscuity(const std::string& ifname) {
  FILE* f = popen(("ip -d link show " + ifname + " 2>/dev/null").c_str(), "r");
  if (!f) return -1;
  char buf[4096];
  std::string text;
  while (fgets(buf, sizeof buf, f)) text += buf;
  pclose(f);
  auto at = text.find("promiscuity ");
  return at == std::string::npos ? -1 : std::atoi(text.c_str() + at + 12);
}

// A swap that fails after the rebuilt FromDevice took over its predecessor's rings (a later
// block cannot open its file) leaves the running graph as it was: its promisc setting too.
TEST(Device, FailedSwapLeavesTheRunningFromDeviceAlone) {
  VethNamespace ns;
  ASSERT_TRUE(ns.ok()) << "cannot create a network namespace with a veth pair (needs root and iproute2)";
  std::string out = tmp("failed_swap_out.pcap");
  auto graph = [&](bool promisc, const std::string& file) {
    return json{{"blocks",
                 {{{"type", "FromDevice"}, {"name", "rx"}, {"config", {{"devname", "vb"}, {"promisc", promisc}}}},
                  {{"type", "ToDump"}, {"name", "out"}, {"config", {{"filename", file}}}}}},
                {"connectors", {{{"src", "rx"}, {"dst", "out"}}}}};
  };
  RuntimeOptions o;
  o.workers = 1;
  Runtime rt(o);
  rt.set_graph(graph(false, out));
  ASSERT_EQ(promiscuity("vb"), 0);
  EXPECT_THROW(rt.set_graph(graph(true, "/nonexistent-dir/x.pcap")), openbox::ProtocolError);
  EXPECT_EQ(promiscuity("vb"), 0);
  rt.set_graph(graph(true, out));
  EXPECT_EQ(promiscuity("vb"), 1);
  rt.set_graph(graph(false, out));
  EXPECT_EQ(promiscuity("vb"), 0);
  fs::remove(out);
}

// AfPacketTx in both modes on a veth: every frame arrives once, in order; on the ring one
// sendto takes a whole batch, and a frame longer than the MTU allows is refused without
// stalling the ring (the frames after it still go out; sendmmsg stops at such a frame, so
// the sendmmsg pass has none).
TEST(Device, AfPacketTxRingAndSendmmsgDeliverEveryFrame) {
  VethNamespace ns;
  ASSERT_TRUE(ns.ok()) << "cannot create a network namespace with a veth pair (needs root and iproute2)";
  int rx = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
  ASSERT_GE(rx, 0);
  int buf = 16 << 20;
  setsockopt(rx, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof buf);
  timeval tv{0, 300000};
  setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = htons(ETH_P_ALL);
  sll.sll_ifindex = io::interface_index("vb");
  ASSERT_EQ(bind(rx, reinterpret_cast<sockaddr*>(&sll), sizeof sll), 0);
  for (auto mode : {io::AfPacketTx::Mode::kRing, io::AfPacketTx::Mode::kSendmmsg}) {
    const bool ring = mode == io::AfPacketTx::Mode::kRing;
    io::AfPacketTx tx;
    tx.open("va", mode);
    EXPECT_EQ(tx.ring(), ring);
    // 40 batches of 32 (2.5 times round the 512-slot ring); on the ring the first frame of
    // batch 3 is 3000 bytes, over the veth's MTU
    constexpr int kBatches = 40;
    std::vector<Bytes> frames;
    std::vector<std::string> expected;
    for (int i = 0; i < kBatches * int(kBatchSize); ++i) {
      std::string mark = std::string(ring ? "OBI-RING-" : "OBI-MMSG-") + std::to_string(i);
      const bool oversized = ring && i == 3 * int(kBatchSize);
      if (oversized) mark += std::string(3000, 'x');
      frames.push_back(udp4("192.0.2.1", "192.0.2.2", 4000, 5000, mark));
      if (!oversized) expected.emplace_back(frames.back().begin(), frames.back().end());
    }
    std::vector<Packet> pkts(frames.size());
    uint64_t taken = 0;
    for (int b = 0; b < kBatches; ++b) {
      Batch batch;
      for (unsigned i = 0; i < kBatchSize; ++i) {
        Packet& p = pkts[b * kBatchSize + i];
        p.data = p.buf = frames[b * kBatchSize + i].data();
        p.len = static_cast<uint32_t>(frames[b * kBatchSize + i].size());
        batch.add(&p);
      }
      taken += tx.send(batch);
    }
    if (ring) EXPECT_EQ(tx.calls(), uint64_t(kBatches));  // one sendto per batch
    else EXPECT_GE(tx.calls(), uint64_t(kBatches));
    EXPECT_EQ(taken, expected.size());  // the frame over the MTU is refused, the rest taken
    std::vector<std::string> got;
    char frame[4096];
    for (;;) {
      ssize_t n = recv(rx, frame, sizeof frame, 0);
      if (n <= 0) break;
      std::string f(frame, size_t(n));
      if (f.find(ring ? "OBI-RING-" : "OBI-MMSG-") != std::string::npos) got.push_back(f);
    }
    EXPECT_EQ(got, expected) << (ring ? "ring" : "sendmmsg");
  }
  close(rx);
}

// FromDevice's per-frame receive ring (rx_ring "frame", TPACKET_V2): every frame sent on
// the veth is read once, in the order sent (the graph runs on one worker).
std::vector<std::string> read_marked_in_order(const std::string& path) {
  std::vector<std::string> out;
  io::PcapReader r(path);
  uint64_t off = r.begin();
  io::PcapRecord rec;
  while (r.next(off, rec)) {
    std::string s(reinterpret_cast<const char*>(rec.data), rec.caplen);
    if (s.find("OBI-TEST-") != std::string::npos) out.push_back(s);
  }
  return out;
}

TEST(Device, FrameRingReadsEveryFrameInOrder) {
  VethNamespace ns;
  ASSERT_TRUE(ns.ok()) << "cannot create a network namespace with a veth pair (needs root and iproute2)";
  std::string in = tmp("frame_in.pcap"), out = tmp("frame_out.pcap");
  std::vector<std::string> sent;
  {
    io::PcapWriter w(in);
    for (int i = 0; i < 3000; ++i) {  // more than the ring's 2048 slots: it wraps
      Bytes b = udp4("192.0.2.1", "192.0.2.9", 4000 + i % 1000, 5000, "OBI-TEST-" + std::to_string(i));
      w.write(b.data(), static_cast<uint32_t>(b.size()), 1000ull * i);
      sent.emplace_back(b.begin(), b.end());
    }
  }
  json g = loop_graph(in, "va", "vb", out);
  g["blocks"][2]["config"]["rx_ring"] = "frame";
  {
    RuntimeOptions o;
    o.workers = 1;
    Runtime rt(o);
    rt.set_graph(g);
    rt.start();
    wait_for(rt, "rx", 3000);
    rt.stop();
    EXPECT_EQ(rt.read("tx", "count").get<uint64_t>(), 3000u);
    EXPECT_EQ(rt.read("rx", "drops").get<uint64_t>(), 0u);
  }
  EXPECT_EQ(read_marked_in_order(out), sent);
  fs::remove(in);
  fs::remove(out);
}

// A lone frame on a quiet interface is read from the per-frame ring by itself, then the
// next one: each arrives before the next is sent.
TEST(Device, FrameRingHandsOverALoneFrame) {
  VethNamespace ns;
  ASSERT_TRUE(ns.ok()) << "cannot create a network namespace with a veth pair (needs root and iproute2)";
  io::AfPacketRx rx;
  rx.open("vb", true, -1, io::RxRing::kFrame);
  ASSERT_EQ(rx.kind(), io::RxRing::kFrame);
  io::AfPacketTx tx;
  tx.open("va");
  PacketPool pool(64);
  Context ctx;
  ctx.pool = &pool;
  for (int i = 0; i < 5; ++i) {
    Bytes b = udp4("192.0.2.1", "192.0.2.9", 4000, 5000, "OBI-TEST-lone-" + std::to_string(i));
    Packet p;
    p.data = p.buf = b.data();
    p.len = p.buf_size = static_cast<uint32_t>(b.size());
    Batch out;
    out.add(&p);
    ASSERT_EQ(tx.send(out), 1u);
    Batch got;
    for (int t = 0; t < 2000 && got.n == 0; ++t) {
      rx.poll(got, ctx);
      if (got.n == 0) std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    ASSERT_EQ(got.n, 1u) << "frame " << i;
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(got.pkts[0]->data), got.pkts[0]->len),
              std::string(b.begin(), b.end()));
    EXPECT_GT(got.pkts[0]->timestamp_ns, 0u);
    pool.free(got.pkts[0]);
  }
  EXPECT_EQ(rx.drops(), 0u);
}

TEST(Device, BadRxRingIsBadBlock) {
  VethNamespace ns;
  ASSERT_TRUE(ns.ok()) << "cannot create a network namespace with a veth pair (needs root and iproute2)";
  RuntimeOptions o;
  o.workers = 1;
  Runtime rt(o);
  json g = {{"blocks",
             {{{"type", "FromDevice"}, {"name", "rx"}, {"config", {{"devname", "vb"}, {"rx_ring", "fast"}}}},
              {{"type", "ToDevice"}, {"name", "tx"}, {"config", {{"devname", "va"}}}}}},
            {"connectors", {{{"src", "rx"}, {"dst", "tx"}}}}};
  try {
    rt.set_graph(g);
    FAIL();
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_BLOCK);
    EXPECT_NE(std::string(e.what()).find("rx_ring"), std::string::npos) << e.what();
  }
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
    o.eal_args = {"--no-huge",   "--no-pci",      "-m",
                  "512",         "--vdev",        "net_ring0",
                  "--no-shconf", "--file-prefix", "obi_test_" + std::to_string(getpid()),
                  "--log-level", "*:error"};
    Runtime rt(o);
    // A port that does not exist is refused when the graph is set.
    EXPECT_THROW(rt.set_graph(loop_graph(in, "dpdk:7", "dpdk:7", out)), openbox::ProtocolError);
    rt.set_graph(loop_graph(in, "dpdk:0", "dpdk:0", out));  // net_ring0: what is sent comes back
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

// A DPDK FromDevice rebuilt at swaps (promisc changed) reads on from the port's RX queue,
// which lives as long as the process: frames queued before the swaps, while no worker
// runs, are all read by the last graph.
TEST(Device, DpdkFromDeviceRebuiltAtSwapsKeepsItsQueue) {
  std::string out = tmp("dpdk_swap_out.pcap");
  auto graph = [&](bool promisc) {
    return json{{"blocks",
                 {{{"type", "FromDevice"}, {"name", "rx"}, {"config", {{"devname", "dpdk:0"}, {"promisc", promisc}}}},
                  {{"type", "ToDump"}, {"name", "out"}, {"config", {{"filename", out}}}}}},
                {"connectors", {{{"src", "rx"}, {"dst", "out"}}}}};
  };
  std::set<std::string> sent;
  {
    RuntimeOptions o;
    o.workers = 1;
    o.eal_args = {"--no-huge",   "--no-pci",      "-m",
                  "512",         "--vdev",        "net_ring0",
                  "--no-shconf", "--file-prefix", "obi_test_" + std::to_string(getpid()),
                  "--log-level", "*:error"};
    Runtime rt(o);
    rt.set_graph(graph(false));  // port 0 configured and started
    rte_mempool* mp = rte_pktmbuf_pool_create(("obi_t_swap" + std::to_string(getpid())).c_str(), 1023, 0, 0,
                                              RTE_MBUF_DEFAULT_BUF_SIZE, static_cast<int>(rte_socket_id()));
    ASSERT_NE(mp, nullptr);
    for (int i = 0; i < 200; ++i) {  // net_ring0: what TX queue 0 takes, RX queue 0 gives back
      Bytes b = udp4("192.0.2.1", "192.0.2.9", 4000 + i, 5000, "OBI-TEST-" + std::to_string(i));
      rte_mbuf* m = rte_pktmbuf_alloc(mp);
      ASSERT_NE(m, nullptr);
      std::memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(b.size())), b.data(), b.size());
      ASSERT_EQ(rte_eth_tx_burst(0, 0, &m, 1), 1);
      sent.insert(std::string(b.begin(), b.end()));
    }
    rt.set_graph(graph(true));  // FromDevice rebuilt twice before any worker reads
    rt.set_graph(graph(false));
    rt.start();
    wait_for(rt, "rx", 200);
    rt.stop();
  }
  EXPECT_EQ(read_marked(out), sent);
  fs::remove(out);
}

}  // namespace
