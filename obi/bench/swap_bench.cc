// swap_bench: compile + swap time of the firewall graph on a running OBI, by rule count.
//
//   swap_bench [--data DIR] [--runs R] [--workers N] [--pcap P]
//
// A Runtime runs FromDump -> HeaderClassifier (ClassBench rules, one output per rule)
// -> Discard with the FromDump replaced by a loop over P (default fw-4560.trace.pcap)
// preloaded in memory, so traffic flows during every swap. Each run hands the Runtime
// the graph as JSON text and measures the time until the new graph is live: parse +
// validate + compile + activate + publish + every worker switched (Runtime::set_graph
// returns once all workers run the new graph and the old one is retired). Runs alternate
// between two configs of the classifier (the second adds a catch-all rule), so the
// classifier is rebuilt every time while the source and sink are carried over.
// ms: until set_graph returns and the old graph is freed (release_retired); live_ms: until the new graph is live
// (parse + compile + activate + switch, without retiring the old one).
//
// Sets: 1000 (acl1-1000), 2000 (first 2000 rules of fw1-10000), 4560 (fw-4560),
// 10000 (fw1-10000). One JSON line per set:
//   {"bench":"compile_swap","set":..,"rules":..,"runs":..,"ms_median":..,"ms_min":..,
//    "ms_max":..,"live_ms_median":..,"live_ms_min":..,"live_ms_max":..,"parse_ms_median":..,"compile_ms_median":..,"activate_ms_median":..,
//    "switch_ms_median":..,"retire_ms_median":..,"idle_compile_ms_median":..,
//    "traffic_mpps":..,"workers":..}
// The parts: JSON parse, then Runtime::last_swap(): compile (validate + build elements),
// activate, switch (publish until every worker runs the new graph), retire (deactivate
// what the old graph does not share). idle_compile_ms is compile_graph alone without traffic.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "../tests/blocks_classify/classbench.hh"
#include "engine/graph.hh"
#include "engine/replay.hh"
#include "engine/runtime.hh"
#include "engine/worker.hh"

using namespace obi;
using json = nlohmann::json;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

json firewall(const std::vector<json>& rules, bool variant, const std::string& pcap) {
  json match = json::array();
  for (const json& r : rules) match.push_back(r);
  if (variant) match.push_back(json::object());  // catch-all: a different config
  json g = {{"blocks",
             {{{"type", "FromDump"}, {"name", "in"}, {"config", {{"filename", pcap}}}},
              {{"type", "HeaderClassifier"}, {"name", "fw"}, {"config", {{"match", match}}}},
              {{"type", "Discard"}, {"name", "out"}}}},
            {"connectors", json::array()}};
  g["connectors"].push_back({{"src", "in"}, {"src_port", 0}, {"dst", "fw"}, {"dst_port", 0}});
  for (std::size_t i = 0; i < match.size(); ++i)
    g["connectors"].push_back({{"src", "fw"}, {"src_port", i}, {"dst", "out"}, {"dst_port", 0}});
  return g;
}

double r2(double v) { return std::round(v * 100) / 100; }

}  // namespace

int main(int argc, char** argv) {
  std::string dir = obi::classbench::data_dir();
  std::string pcap;
  int runs = 9;
  unsigned workers = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--data") dir = argv[i + 1];
    else if (a == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--workers") workers = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--pcap") pcap = argv[i + 1];
    else {
      std::fprintf(stderr, "swap_bench: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (pcap.empty()) pcap = dir + "/fw-4560.trace.pcap";
  std::shared_ptr<const Trace> trace = Trace::load(pcap);

  struct Set {
    const char* label;
    std::string file;
    std::size_t limit;
  };
  std::vector<Set> sets = {{"acl1-1000", dir + "/acl1-1000.classbench", 0},
                           {"fw1-10000[:2000]", dir + "/fw1-10000.classbench", 2000},
                           {"fw-4560", dir + "/fw-4560.classbench", 0},
                           {"fw1-10000", dir + "/fw1-10000.classbench", 0}};
  for (const Set& s : sets) {
    std::vector<json> rules = obi::classbench::classbench_rules(s.file);
    if (s.limit && rules.size() > s.limit) rules.resize(s.limit);
    const std::string text[2] = {firewall(rules, false, pcap).dump(), firewall(rules, true, pcap).dump()};

    // compile_graph alone, for the breakdown.
    std::vector<double> parse_ms, compile_ms;
    for (int r = 0; r < std::min(runs, 5); ++r) {
      uint64_t t0 = monotonic_ns();
      json g = json::parse(text[r & 1]);
      uint64_t t1 = monotonic_ns();
      CompileOptions co;
      co.workers = workers;
      auto compiled = compile_graph(g, co);
      uint64_t t2 = monotonic_ns();
      parse_ms.push_back((t1 - t0) / 1e6);
      compile_ms.push_back((t2 - t1) / 1e6);
    }

    RuntimeOptions o;
    o.workers = workers;
    o.replace_source = [&](const std::string&) -> std::unique_ptr<Element> {
      return std::make_unique<ReplaySource>(trace, workers);
    };
    Runtime rt(o);
    rt.set_graph(json::parse(text[1]));
    rt.start();
    std::vector<double> total_ms, live_ms, run_parse, run_compile, run_activate, run_switch, run_retire;
    uint64_t in0 = rt.stats().packets_in, t_start = monotonic_ns();
    for (int r = 0; r < runs; ++r) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // traffic between swaps
      uint64_t t0 = monotonic_ns();
      json g = json::parse(text[r & 1]);
      uint64_t t1 = monotonic_ns();
      rt.set_graph(g);
      rt.release_retired();  // ms includes freeing the replaced graph, as a controller's swap does before its next
      total_ms.push_back((monotonic_ns() - t0) / 1e6);
      SwapTiming st = rt.last_swap();
      run_parse.push_back((t1 - t0) / 1e6);
      run_compile.push_back(st.compile_ms);
      run_activate.push_back(st.activate_ms);
      run_switch.push_back(st.switch_ms);
      run_retire.push_back(st.retire_ms);
      live_ms.push_back((t1 - t0) / 1e6 + st.compile_ms + st.activate_ms + st.switch_ms);
    }
    double secs = (monotonic_ns() - t_start) / 1e9;
    uint64_t in = rt.stats().packets_in - in0;
    rt.stop();
    double ms = median(total_ms);
    json out = {{"bench", "compile_swap"},
                {"set", s.label},
                {"rules", rules.size()},
                {"runs", runs},
                {"ms_median", r2(ms)},
                {"ms_min", r2(*std::min_element(total_ms.begin(), total_ms.end()))},
                {"ms_max", r2(*std::max_element(total_ms.begin(), total_ms.end()))},
                {"live_ms_median", r2(median(live_ms))},
                {"live_ms_min", r2(*std::min_element(live_ms.begin(), live_ms.end()))},
                {"live_ms_max", r2(*std::max_element(live_ms.begin(), live_ms.end()))},
                {"parse_ms_median", r2(median(run_parse))},
                {"compile_ms_median", r2(median(run_compile))},
                {"activate_ms_median", r2(median(run_activate))},
                {"switch_ms_median", r2(median(run_switch))},
                {"retire_ms_median", r2(median(run_retire))},
                {"idle_compile_ms_median", r2(median(compile_ms))},
                {"traffic_mpps", r2(in / secs / 1e6)},
                {"workers", workers}};
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);
  }
  return 0;
}
