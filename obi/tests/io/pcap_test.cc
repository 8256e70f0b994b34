// pcap I/O through the runtime: FromDump -> ToDump copies, bad files, multi-worker split.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "engine/graph.hh"
#include "engine/runtime.hh"
#include "engine/testing.hh"
#include "io/pcap.hh"

using namespace obi;
using namespace obi::testing;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string tmp(const std::string& name) {
  return (fs::temp_directory_path() / ("obi_io_" + std::to_string(getpid()) + "_" + name)).string();
}
std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
std::string shared_data(const std::string& rel) { return std::string(OPENBOX_ROOT) + "/../shared/data/" + rel; }
json copy_graph(const std::string& in, const std::string& out) {
  return {{"blocks",
           {{{"type", "FromDump"}, {"name", "in"}, {"config", {{"filename", in}}}},
            {{"type", "ToDump"}, {"name", "out"}, {"config", {{"filename", out}}}}}},
          {"connectors", {{{"src", "in"}, {"src_port", 0}, {"dst", "out"}, {"dst_port", 0}}}}};
}
void run_until_done(Runtime& rt) {
  rt.start();
  for (int i = 0; i < 10000 && !rt.sources_done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(rt.sources_done());
  rt.stop();
}
// Records of a pcap as (timestamp, bytes), in file order.
std::vector<std::pair<uint64_t, std::string>> records(const std::string& path) {
  io::PcapReader r(path);
  std::vector<std::pair<uint64_t, std::string>> out;
  uint64_t off = r.begin();
  io::PcapRecord rec;
  while (r.next(off, rec))
    out.emplace_back(rec.ts_ns, std::string(reinterpret_cast<const char*>(rec.data), rec.caplen));
  return out;
}

TEST(Pcap, FromDumpToDumpIsByteIdentical) {
  std::string in = tmp("in.pcap"), out = tmp("out.pcap");
  {
    io::PcapWriter w(in);
    for (int i = 0; i < 1000; ++i) {
      Bytes b = tcp4("10.0.0." + std::to_string(i % 200), "10.1.0.1", 1000 + i, 80, std::string(i % 300, 'x'));
      w.write(b.data(), static_cast<uint32_t>(b.size()), 1700000000ull * 1000000000ull + i * 1000ull);
    }
  }
  {
    RuntimeOptions o;
    o.workers = 1;
    Runtime rt(o);
    rt.set_graph(copy_graph(in, out));
    run_until_done(rt);
    EXPECT_EQ(rt.read("in", "count").get<uint64_t>(), 1000u);
    EXPECT_EQ(rt.read("out", "count").get<uint64_t>(), 1000u);
    EXPECT_EQ(rt.stats().packets_out, 1000u);
  }  // the runtime closes (flushes) the dump
  EXPECT_EQ(slurp(in), slurp(out));
  fs::remove(in);
  fs::remove(out);
}

TEST(Pcap, SharedTraceCopiesRecordForRecordWithTwoWorkers) {
  std::string in = shared_data("fw-4560.trace.pcap"), out = tmp("fw.pcap");
  auto want = records(in);
  ASSERT_GT(want.size(), 1000u);
  {
    RuntimeOptions o;
    o.workers = 2;
    Runtime rt(o);
    rt.set_graph(copy_graph(in, out));
    run_until_done(rt);
  }
  auto got = records(out);
  ASSERT_EQ(got.size(), want.size());
  // Workers interleave; as a multiset the records are the same.
  std::map<std::pair<uint64_t, std::string>, int> count;
  for (auto& r : want) ++count[r];
  for (auto& r : got) --count[r];
  for (auto& [k, v] : count) ASSERT_EQ(v, 0);
  fs::remove(out);
}

TEST(Pcap, BadFilesAreRejectedAsBadBlock) {
  std::string garbage = tmp("garbage.pcap"), empty = tmp("empty.pcap");
  { std::ofstream(garbage) << std::string(100, 'z'); }
  { std::ofstream(empty) << ""; }
  std::vector<std::string> files = {garbage, empty, "/nonexistent/dir/x.pcap", "/tmp",
                                    shared_data("pcap/zeek-cooper-grill-dvwa.pcapng")};
  RuntimeOptions o;
  o.workers = 1;
  Runtime rt(o);
  for (const auto& f : files) {
    try {
      rt.set_graph(copy_graph(f, tmp("never.pcap")));
      FAIL() << f;
    } catch (const openbox::ProtocolError& e) {
      EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_BLOCK) << e.what();
      EXPECT_NE(std::string(e.what()).find("'in'"), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(fs::exists(tmp("never.pcap")));  // nothing opened for a rejected graph
  // An unwritable dump fails at activation, also as BAD_BLOCK.
  EXPECT_THROW(rt.set_graph(copy_graph(shared_data("fw-4560.trace.pcap"), "/nonexistent/dir/o.pcap")),
               openbox::ProtocolError);
  EXPECT_EQ(rt.graph(), json::object());
  fs::remove(garbage);
  fs::remove(empty);
}

TEST(Pcap, TruncatedFileYieldsCompleteRecordsOnly) {
  std::string in = tmp("trunc.pcap"), out = tmp("trunc_out.pcap");
  {
    io::PcapWriter w(in);
    for (int i = 0; i < 10; ++i) {
      Bytes b = udp4("1.1.1.1", "2.2.2.2", i, 9);
      w.write(b.data(), 60, i * 1000ull);
    }
  }
  fs::resize_file(in, fs::file_size(in) - 30);  // cut the last record
  {
    RuntimeOptions o;
    o.workers = 1;
    Runtime rt(o);
    rt.set_graph(copy_graph(in, out));
    run_until_done(rt);
    EXPECT_EQ(rt.read("in", "count").get<uint64_t>(), 9u);
  }
  EXPECT_EQ(records(out).size(), 9u);
  fs::remove(in);
  fs::remove(out);
}

TEST(Pcap, FromDumpHandles) {
  std::string in = shared_data("fw-4560.trace.pcap");
  ElementHarness h("FromDump", {{"filename", in}, {"active", false}}, "in");
  bool more = false;
  EXPECT_EQ(h.poll(&more).total(), 0u);
  EXPECT_TRUE(more);
  h.write("active", true);
  EXPECT_EQ(h.read("active"), true);
  Result r = h.poll(&more);
  ASSERT_EQ(r.total(), kBatchSize);
  EXPECT_EQ(h.read("count").get<uint64_t>(), kBatchSize);
  EXPECT_GT(h.read("byte_count").get<uint64_t>(), 0u);
  EXPECT_TRUE(h.read("rate").is_number());
  EXPECT_TRUE(h.read("byte_rate").is_number());
  h.write("reset_counts", nullptr);
  EXPECT_EQ(h.read("count").get<uint64_t>(), 0u);
  EXPECT_THROW(h.write("active", "yes"), openbox::ProtocolError);
  EXPECT_EQ(r.meta[0][0].flow_hash, [&] {
    Packet p;
    Bytes b = r.out[0][0];
    p.data = b.data();
    p.len = b.size();
    return flow_hash(p);
  }());
}

TEST(Pcap, TimingKeepsInterPacketDelays) {
  std::string in = tmp("timed.pcap");
  {
    io::PcapWriter w(in);
    for (int i = 0; i < 3; ++i) {
      Bytes b = udp4("1.1.1.1", "2.2.2.2", 1, 2);
      w.write(b.data(), 60, 5000000000ull + i * 50000000ull);
    }
  }
  ElementHarness h("FromDump", {{"filename", in}, {"timing", true}}, "in");
  h.set_now(1000);
  EXPECT_EQ(h.poll().total(), 1u);  // first packet at once
  h.set_now(1000 + 49000000);
  EXPECT_EQ(h.poll().total(), 0u);  // second is due 50 ms later
  h.set_now(1000 + 50000000);
  EXPECT_EQ(h.poll().total(), 1u);
  h.set_now(1000 + 200000000);
  bool more = true;
  EXPECT_EQ(h.poll(&more).total(), 1u);
  EXPECT_FALSE(more);
  fs::remove(in);
}

}  // namespace

namespace {

// FromDevice "in" -> ToDevice "out", the shape of an application's graph.
json device_graph() {
  return {{"blocks",
           {{{"type", "FromDevice"}, {"name", "rx"}, {"config", {{"devname", "in"}}}},
            {{"type", "ToDevice"}, {"name", "tx"}, {"config", {{"devname", "out"}}}}}},
          {"connectors", {{{"src", "rx"}, {"src_port", 0}, {"dst", "tx"}, {"dst_port", 0}}}}};
}

TEST(DeviceMap, ParsesBindingsAndRejectsBadOnes) {
  DeviceMap m = parse_device_map("in=pcap:/tmp/a.pcap,out=veth1");
  EXPECT_EQ(m.at("in"), "pcap:/tmp/a.pcap");
  EXPECT_EQ(m.at("out"), "veth1");
  EXPECT_THROW(parse_device_map("in"), std::invalid_argument);
  EXPECT_THROW(parse_device_map("=x"), std::invalid_argument);
  EXPECT_THROW(parse_device_map("in="), std::invalid_argument);
  EXPECT_THROW(parse_device_map("in=a,in=b"), std::invalid_argument);
}

TEST(DeviceMap, PcapBoundDevicesReadAndWriteFiles) {
  std::string in = tmp("dev_in.pcap"), out = tmp("dev_out.pcap");
  {
    io::PcapWriter w(in);
    for (int i = 0; i < 100; ++i) {
      Bytes b = udp4("10.0.0.1", "10.0.0.2", 1000 + i, 53, std::string(i, 'q'));
      w.write(b.data(), static_cast<uint32_t>(b.size()), 1700000000ull * 1000000000ull + i);
    }
  }
  RuntimeOptions o;
  o.workers = 1;
  o.devices = parse_device_map("in=pcap:" + in + ",out=pcap:" + out);
  {
    Runtime rt(o);
    rt.set_graph(device_graph());
    run_until_done(rt);
    EXPECT_EQ(rt.read("rx", "count").get<uint64_t>(), 100u);
    EXPECT_EQ(rt.graph(), device_graph());  // the graph is reported as given
  }                                         // the runtime closes (and so completes) its output file
  EXPECT_EQ(records(out), records(in));
  fs::remove(in);
  fs::remove(out);
}

TEST(DeviceMap, DirectionBindingsSplitOneDeviceIntoTwoFiles) {
  // a graph that sends its packets back through the device they came in by
  json graph = {{"blocks",
                 {{{"type", "FromDevice"}, {"name", "rx"}, {"config", {{"devname", "in"}}}},
                  {{"type", "ToDevice"}, {"name", "tx"}, {"config", {{"devname", "in"}}}}}},
                {"connectors", {{{"src", "rx"}, {"src_port", 0}, {"dst", "tx"}, {"dst_port", 0}}}}};
  std::string in = tmp("dir_in.pcap"), back = tmp("dir_back.pcap");
  {
    io::PcapWriter w(in);
    for (int i = 0; i < 50; ++i) {
      Bytes b = udp4("10.0.0.1", "10.0.0.2", 2000 + i, 53, std::string(i, 'r'));
      w.write(b.data(), static_cast<uint32_t>(b.size()), 1700000000ull * 1000000000ull + i);
    }
  }
  auto before = records(in);
  RuntimeOptions o;
  o.workers = 1;
  o.devices = parse_device_map("in=pcap:" + in + ",in/tx=pcap:" + back);
  {
    Runtime rt(o);
    rt.set_graph(graph);
    run_until_done(rt);
    EXPECT_EQ(rt.read("rx", "count").get<uint64_t>(), 50u);
  }                                  // the runtime closes (and so completes) its output file
  EXPECT_EQ(records(in), before);    // the input trace is read, not overwritten
  EXPECT_EQ(records(back), before);  // what left by "in" went to the tx file
  fs::remove(in);
  fs::remove(back);
}

TEST(DeviceMap, UnboundDevicesAreLeftAlone) {
  RuntimeOptions o;
  o.workers = 1;
  o.devices = parse_device_map("other=pcap:/nonexistent.pcap");
  Runtime rt(o);
  // "in" is not a Linux interface here and not bound: the graph is refused as BAD_BLOCK
  try {
    rt.set_graph(device_graph());
    FAIL() << "expected BAD_BLOCK";
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_BLOCK);
  }
}

}  // namespace
