// obi bench: a graph on a pcap preloaded in memory, replayed in a loop at the position of
// the graph's sources, for a fixed time; prints throughput, per-packet time percentiles
// (from the time of each batch through the graph) and peak RSS.
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>

#include "cli/args.hh"
#include "cli/commands.hh"
#include "engine/events.hh"
#include "engine/graph.hh"
#include "engine/pool.hh"
#include "engine/replay.hh"
#include "engine/worker.hh"

namespace obi::cli {
namespace {

const char* kBenchHelp =
    "usage: obi bench --graph G.json --pcap P.pcap [--seconds S] [--workers N] [--json] [--name NAME]\n"
    "                 [--preparsed]\n"
    "Preloads P.pcap in memory and pushes it through G.json repeatedly (replacing the graph's\n"
    "source blocks) for S seconds (default 5); reports Mpps, Gbps, ns/packet p50/p99, peak RSS.\n"
    "Each packet is copied into a pool buffer, its headers parsed and its flow hash computed on\n"
    "the packet path, as a real source does (packet_path \"parse+hash\"). Measuring starts once\n"
    "every classifier's background build (rte_acl) has settled (settle_ms); classifier_engines\n"
    "counts what answers each classifier (acl, bitvector, or fused: another classifier's lookup).\n"
    "  --workers N    worker threads (default 1)\n"
    "  --preparsed    reuse the header parse and flow hash computed when the pcap was loaded\n"
    "                 (packet_path \"copy\": an upper bound no real source reaches)\n"
    "  --json         one JSON object: graph packets bytes seconds mpps gbps ns_p50 ns_p99 rss_mb\n"
    "                 workers compile_ms trace_packets packet_path classifier_engines settle_ms\n"
    "                 cpu_ns_per_packet (the workers' thread CPU time per packet: what a shared,\n"
    "                 loaded machine does not inflate) flow_cache (HeaderClassifier caches:\n"
    "                 hits misses bypassed over the whole run, warm-up included)\n"
    "  --name NAME    graph name in the report (default: the graph file name)\n";

// Per-packet time of each batch, in 1/8 ns buckets up to 64 us.
struct Histogram {
  static constexpr uint32_t kBuckets = 8 * 65536;
  std::vector<uint64_t> n = std::vector<uint64_t>(kBuckets, 0);
  void add(double ns_per_packet, uint32_t weight) {
    uint64_t b = static_cast<uint64_t>(ns_per_packet * 8);
    n[std::min<uint64_t>(b, kBuckets - 1)] += weight;
  }
  void merge(const Histogram& o) {
    for (uint32_t i = 0; i < kBuckets; ++i) n[i] += o.n[i];
  }
  double percentile(double q) const {
    uint64_t total = 0;
    for (uint64_t c : n) total += c;
    if (!total) return 0;
    uint64_t want = static_cast<uint64_t>(std::ceil(q * total)), seen = 0;
    for (uint32_t i = 0; i < kBuckets; ++i)
      if ((seen += n[i]) >= want) return (i + 0.5) / 8.0;
    return kBuckets / 8.0;
  }
};

struct WorkerResult {
  uint64_t packets = 0, bytes = 0;
  uint64_t cpu_ns = 0;  // thread CPU time of the measured rounds
  Histogram hist;
};

}  // namespace

int bench(const std::vector<std::string>& argv) {
  for (const auto& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kBenchHelp, stdout);
      return 0;
    }
  Args args(argv, {"graph", "pcap", "seconds", "workers", "name"}, {"json", "preparsed"});
  const bool preparsed = args.has("preparsed");
  std::string graph_path = args.required("graph");
  std::string pcap = args.required("pcap");
  double seconds = args.get_double("seconds", 5, 0.01, 3600);
  unsigned workers = args.get_unsigned("workers", 1, 1, 1024);
  std::string name = args.get("name", graph_path.substr(graph_path.find_last_of('/') + 1));
  if (name.size() > 5 && name.substr(name.size() - 5) == ".json") name.resize(name.size() - 5);
  nlohmann::json graph = load_graph_file(graph_path);

  std::shared_ptr<const Trace> trace;
  try {
    trace = Trace::load(pcap);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--pcap: ") + e.what());
  }
  CompileOptions co;
  co.workers = workers;
  co.replace_source = [&](const BlockSpec&) -> std::unique_ptr<Element> {
    return std::make_unique<ReplaySource>(trace, workers, preparsed);
  };
  auto t_compile = monotonic_ns();
  std::unique_ptr<CompiledGraph> g = compile_graph(graph, co);
  double compile_ms = (monotonic_ns() - t_compile) / 1e6;
  for (auto& e : g->elements) e->activate();
  // Measure the lookup structures the graph serves with once settled, not the ones that
  // answer while faster ones are still being built; say which they are.
  std::map<std::string, unsigned> engines;
  for (auto& e : g->elements) {
    std::string what = e->settle(std::chrono::seconds(60));
    if (!what.empty()) ++engines[what];
  }
  double settle_ms = (monotonic_ns() - t_compile) / 1e6 - compile_ms;

  RingEventSink events(workers, 4096);
  std::vector<WorkerResult> results(workers);
  std::atomic<bool> stop{false}, measuring{false};
  std::atomic<unsigned> ready{0};
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      PacketPool pool(4096);
      Context ctx;
      ctx.worker = w;
      ctx.pool = &pool;
      ctx.events = &events;
      ctx.wall_offset_ns = wall_offset_ns();
      std::vector<uint8_t> done(g->sources.size(), 0);
      WorkerResult& r = results[w];
      ready.fetch_add(1);
      while (ready.load() < workers) std::this_thread::yield();
      std::vector<Event> sink;
      uint64_t rounds = 0, cpu0 = 0;
      // Rounds before `measuring` warm caches, branch predictors and the pool's buffers.
      while (!stop.load(std::memory_order_relaxed)) {
        if (cpu0 == 0 && measuring.load(std::memory_order_relaxed)) cpu0 = thread_cpu_ns();
        uint64_t t0 = monotonic_ns();
        ctx.now_ns = t0;
        RoundResult rr = run_round(*g, ctx, done.data());
        uint64_t t1 = monotonic_ns();
        if (rr.packets && measuring.load(std::memory_order_relaxed)) {
          r.packets += rr.packets;
          r.bytes += rr.bytes;
          r.hist.add(double(t1 - t0) / rr.packets, rr.packets);
        }
        if ((++rounds & 1023) == 0 && w == 0) {
          sink.clear();
          events.drain(sink, 1 << 20);
        }
      }
      if (cpu0) r.cpu_ns = thread_cpu_ns() - cpu0;
    });
  }
  while (ready.load() < workers) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  uint64_t start = monotonic_ns();
  measuring.store(true);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (auto& t : threads) t.join();
  double secs = (monotonic_ns() - start) / 1e9;
  nlohmann::json cache = {{"hits", 0}, {"misses", 0}, {"bypassed", 0}};
  bool caches = false;
  for (auto& e : g->elements) {
    if (e->type() != "HeaderClassifier") continue;
    nlohmann::json c = e->read("flow_cache");
    if (c.value("entries", 0u) == 0) continue;
    caches = true;
    for (const char* k : {"hits", "misses", "bypassed"}) cache[k] = cache[k].get<uint64_t>() + c[k].get<uint64_t>();
  }
  for (auto& e : g->elements) e->deactivate();

  WorkerResult total;
  for (auto& r : results) {
    total.packets += r.packets;
    total.bytes += r.bytes;
    total.cpu_ns += r.cpu_ns;
    total.hist.merge(r.hist);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  nlohmann::json out = {
      {"graph", name},
      {"packets", total.packets},
      {"bytes", total.bytes},
      {"seconds", std::round(secs * 1000) / 1000},
      {"mpps", std::round(total.packets / secs / 1e6 * 1000) / 1000},
      {"gbps", std::round(total.bytes * 8 / secs / 1e9 * 1000) / 1000},
      {"ns_p50", total.hist.percentile(0.50)},
      {"ns_p99", total.hist.percentile(0.99)},
      {"rss_mb", std::round(ru.ru_maxrss / 1024.0 * 10) / 10},
      {"workers", workers},
      {"compile_ms", std::round(compile_ms * 100) / 100},
      {"trace_packets", trace->records.size()},
      {"packet_path", preparsed ? "copy" : "parse+hash"},
      {"classifier_engines", engines},
      {"settle_ms", std::round(settle_ms * 10) / 10},
      {"cpu_ns_per_packet", total.packets ? std::round(double(total.cpu_ns) / total.packets * 10) / 10 : 0.0},
  };
  if (caches) out["flow_cache"] = cache;
  if (args.has("json")) {
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf(
        "%s: %.3f Mpps, %.3f Gbps over %.2f s on %u worker(s); ns/packet p50 %.2f p99 %.2f; "
        "peak RSS %.1f MB; compile %.2f ms; packet path %s\n",
        name.c_str(), out["mpps"].get<double>(), out["gbps"].get<double>(), secs, workers, out["ns_p50"].get<double>(),
        out["ns_p99"].get<double>(), out["rss_mb"].get<double>(), compile_ms,
        preparsed ? "copy (preparsed)" : "parse+hash");
  }
  return 0;
}

}  // namespace obi::cli
