// classify_bench: HeaderClassifier compile time and throughput on ClassBench sets.
//
//   classify_bench [data_dir] [runs]
//
// Prints (JSON lines): compile ms (thread CPU time) for 1000 (acl1-1000), 2000 (first 2000 rules of
// fw1-10000), 4560 (fw-4560) and 10000 (fw1-10000) rules, median of `runs`; then the
// firewall throughput on fw-4560.trace.pcap: the 45,607 frames preloaded in memory,
// pushed in batches of 32 through the HeaderClassifier element (one output per rule,
// outputs lead to a sink that keeps the packets), one core; and the same frames through
// header parsing alone (the pass-through baseline), with the ratio of the two.
// Throughput is packets per second of thread CPU time (the machines are shared).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

#include "../tests/blocks_classify/classbench.hh"
#include "HeaderClassifier.hh"
#include "common/rule_classifier.hh"
#include "engine/element.hh"
#include "engine/pool.hh"

using namespace obi;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Thread CPU time: on a shared, loaded machine it leaves out the time other processes ran.
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class Sink final : public Element {
 public:
  uint16_t output_count() const override { return 0; }
  void push(uint16_t, Batch& b, Context&, const Outputs&) override { b.n = 0; }
};

}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : obi::classbench::data_dir();
  int runs = argc > 2 ? std::atoi(argv[2]) : 5;

  struct Set { const char* label; std::string file; size_t limit; };
  std::vector<Set> sets = {{"acl1-1000", dir + "/acl1-1000.classbench", 0},
                           {"fw1-10000[:2000]", dir + "/fw1-10000.classbench", 2000},
                           {"fw-4560", dir + "/fw-4560.classbench", 0},
                           {"fw1-10000", dir + "/fw1-10000.classbench", 0}};
  for (const Set& s : sets) {
    auto js = obi::classbench::classbench_rules(s.file);
    if (s.limit && js.size() > s.limit) js.resize(s.limit);
    std::vector<openbox::HeaderMatch> rules;
    for (auto& j : js) rules.push_back(openbox::parse_header_match(j));
    std::vector<double> t;
    obi::blocks::RuleClassifier c;
    for (int r = 0; r < runs; ++r) {
      auto copy = rules;
      double t0 = cpu_seconds();
      c.compile(std::move(copy));
      t.push_back((cpu_seconds() - t0) * 1e3);
    }
    auto info = c.info();
    std::printf("{\"bench\":\"compile\",\"set\":\"%s\",\"rules\":%zu,\"compile_ms_median\":%.2f,\"compile_ms_min\":%.2f,"
                "\"dims\":%u,\"intervals\":%llu,\"classes\":%llu,\"mbytes\":%.1f}\n",
                s.label, rules.size(), median(t), *std::min_element(t.begin(), t.end()), info.dims,
                (unsigned long long)info.intervals, (unsigned long long)info.classes, info.bytes / 1048576.0);
  }

  // Throughput on the fw-4560 trace.
  auto frames = obi::classbench::pcap_frames(dir + "/fw-4560.trace.pcap");
  PacketPool pool(static_cast<uint32_t>(frames.size()));
  std::vector<Packet*> pkts;
  for (auto& f : frames) pkts.push_back(pool.alloc_copy(f.data(), static_cast<uint32_t>(f.size())));
  nlohmann::json cfg = {{"match", obi::classbench::classbench_rules(dir + "/fw-4560.classbench")}};
  ElementFactory factory = find_element("HeaderClassifier");
  if (!factory) { std::fprintf(stderr, "HeaderClassifier not registered\n"); return 1; }
  auto t0 = Clock::now();
  auto fw = factory(ElementArgs{"fw", "HeaderClassifier", cfg, 1});
  double build_ms = ms_since(t0);
  Sink sink;
  Node sink_node{&sink, {}};
  std::vector<Link> links(fw->output_count(), Link{&sink_node, 0});
  Outputs outs{links.data(), static_cast<uint16_t>(links.size())};
  Context ctx;
  ctx.pool = &pool;

  const size_t n = pkts.size();
  const int passes = 20;
  auto run = [&](bool classify) {
    double start = cpu_seconds();
    for (int pass = 0; pass < passes; ++pass) {
      for (size_t i = 0; i < n; i += kBatchSize) {
        Batch b;
        for (size_t j = i; j < std::min(n, i + kBatchSize); ++j) { pkts[j]->parsed = false; b.add(pkts[j]); }
        ctx.now_ns = static_cast<uint64_t>(Clock::now().time_since_epoch().count());
        if (classify) fw->push(0, b, ctx, outs);
        else { for (uint32_t k = 0; k < b.n; ++k) b.pkts[k]->headers(); b.n = 0; }
      }
    }
    return passes * n / (cpu_seconds() - start) / 1e6;
  };
  // The classifier alone, batch-pipelined (what the element uses) vs one packet at a time,
  // measured alternately: the gain of the batch stages' prefetching.
  const auto& rc = static_cast<const obi::blocks::HeaderClassifierElement&>(*fw).classifier();
  auto run_raw = [&](bool batched) {
    double start = cpu_seconds();
    int32_t res[kBatchSize];
    uint64_t sum = 0;
    for (int pass = 0; pass < passes; ++pass)
      for (size_t i = 0; i < n; i += kBatchSize) {
        uint32_t m = static_cast<uint32_t>(std::min<size_t>(kBatchSize, n - i));
        for (uint32_t j = 0; j < m; ++j) pkts[i + j]->parsed = false;
        if (batched) rc.classify_batch(&pkts[i], m, res);
        else for (uint32_t j = 0; j < m; ++j) res[j] = rc.classify(*pkts[i + j]);
        for (uint32_t j = 0; j < m; ++j) sum += static_cast<uint32_t>(res[j]);
      }
    if (sum == 42) std::printf(" ");   // keep the results alive
    return passes * n / (cpu_seconds() - start) / 1e6;
  };
  std::vector<double> fwm, base, batched, single;
  for (int r = 0; r < runs; ++r) {
    base.push_back(run(false));
    fwm.push_back(run(true));
    batched.push_back(run_raw(true));
    single.push_back(run_raw(false));
  }
  double f = median(fwm), b = median(base);
  std::printf("{\"bench\":\"classifier_only\",\"batched_mpps_median\":%.2f,\"per_packet_mpps_median\":%.2f}\n",
              median(batched), median(single));
  std::printf("{\"bench\":\"firewall\",\"rules\":4560,\"packets\":%zu,\"element_build_ms\":%.1f,\"mpps_median\":%.2f,"
              "\"mpps_min\":%.2f,\"mpps_max\":%.2f,\"ns_per_packet\":%.1f,\"parse_only_mpps\":%.2f,\"ratio_to_parse_only\":%.3f}\n",
              n, build_ms, f, *std::min_element(fwm.begin(), fwm.end()), *std::max_element(fwm.begin(), fwm.end()),
              1e3 / f, b, f / b);
  return 0;
}
