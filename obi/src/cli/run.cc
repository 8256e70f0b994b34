// obi run: one graph, no controller, until its sources end or SIGINT; then a summary.
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "catalogue/catalogue.hh"
#include "cli/args.hh"
#include "cli/commands.hh"
#include "engine/runtime.hh"
#include "openbox/json_body.hh"

namespace obi::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
void on_signal(int) { g_interrupted = 1; }

const char* kRunHelp =
    "usage: obi run --graph G.json [--workers N] [--dpdk 'EAL ARGS'] [--device-map NAME=DEV,...] [--busy-poll]\n"
    "Runs the processing graph G.json (blocks + connectors) until every source is exhausted\n"
    "or SIGINT, printing alerts and logs as they come and a summary at the end.\n"
    "  --graph G.json   graph file (a SetProcessingGraphRequest body without type/xid)\n"
    "  --workers N      worker threads (default: one per online core)\n"
    "  --dpdk ARGS      initialise DPDK with these EAL arguments (for devname \"dpdk:N\")\n"
    "  --device-map M   bind the graph's device names: in=veth1,out=dpdk:0 or in=pcap:FILE\n"
    "                   (FromDevice reads / ToDevice writes the pcap file FILE)\n"
    "  --busy-poll      idle workers never sleep (lowest latency; each takes a whole core);\n"
    "                   by default they sleep 50 us per empty round after 64, 1 ms after 1024\n";

void print_events(Runtime& rt) {
  std::vector<Event> ev;
  rt.drain_events(ev, 1024);
  for (const Event& e : ev)
    std::fprintf(stderr, "%s [%s] severity %d: %s\n", e.alert ? "alert" : "log", e.origin_block.c_str(), e.severity,
                 e.message.c_str());
}

}  // namespace

std::string read_file(const std::string& path, std::size_t limit, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(std::string(what) + " " + path + ": cannot be read");
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() > limit) throw UsageError(std::string(what) + " " + path + ": too large");
  return s;
}

nlohmann::json load_graph_file(const std::string& path) {
  const std::string text = read_file(path, SIZE_MAX, "graph file");
  // A graph file is as untrusted as a request body: the same depth-bounded parse, so a file
  // nested thousands deep is refused instead of overflowing the stack of whatever walks it.
  nlohmann::json j;
  try {
    j = openbox::parse_json_body(text);
  } catch (const openbox::ProtocolError& e) {
    const std::string why = e.what();  // "body is not valid JSON", "body nests ... deeper than 64 levels"
    throw UsageError("graph file " + path + " " + (why.rfind("body ", 0) == 0 ? why.substr(5) : why));
  }
  if (j.is_object()) {
    j.erase("type");
    j.erase("xid");
  }
  return j;
}

int run_graph(const std::vector<std::string>& argv) {
  for (const auto& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kRunHelp, stdout);
      return 0;
    }
  Args args(argv, {"graph", "workers", "dpdk", "device-map"}, {"busy-poll"});
  nlohmann::json graph = load_graph_file(args.required("graph"));
  RuntimeOptions o;
  o.devices = device_map_arg(args);
  o.workers = args.get_unsigned("workers", 0, 1, 1024);
  o.eal_args = split_words(args.get("dpdk"));
  o.busy_poll = args.has("busy-poll");
  Runtime rt(o);
  rt.set_graph(graph);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  auto t0 = std::chrono::steady_clock::now();
  rt.start();
  while (!g_interrupted && !rt.sources_done()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    print_events(rt);
  }
  rt.stop();
  print_events(rt);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RuntimeStats s = rt.stats();
  std::printf("%s after %.3f s on %u worker(s)\n", g_interrupted ? "interrupted" : "sources done", secs, rt.workers());
  std::printf("packets in %llu (%llu bytes), out %llu (%llu bytes), dropped %llu\n", (unsigned long long)s.packets_in,
              (unsigned long long)s.bytes_in, (unsigned long long)s.packets_out, (unsigned long long)s.bytes_out,
              (unsigned long long)s.packets_dropped);
  // Every block's counters that its descriptor lists.
  for (const auto& b : graph["blocks"]) {
    std::string name = b.value("name", ""), type = b.value("type", "");
    const BlockDescriptor* d = Catalogue::builtin().find(type);
    if (!d) continue;
    std::vector<std::string> handles;
    for (const auto& h : d->read_handles)
      if (!h.indexed && (h.name == "count" || h.name == "byte_count" || h.name == "drops" || h.name == "offloads"))
        handles.push_back(h.name);
    if (type == "ToDevice") handles = {"count", "drops", "send_calls"};  // outside the spec, so not in the catalogue
    std::string line;
    for (const auto& h : handles) {
      try {
        line += " " + h + "=" + rt.read(name, h).dump();
      } catch (const std::exception&) {}
    }
    if (!line.empty()) std::printf("  %-20s %-24s%s\n", name.c_str(), type.c_str(), line.c_str());
  }
  return 0;
}

}  // namespace obi::cli
