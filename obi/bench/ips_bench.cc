// ips_bench: HeaderPayloadClassifier throughput with the Snort web rules.
//
//   python3 shared/data/pcap/generated/snort2re.py shared/data/snort-web.rules /tmp/snort-web.re.json
//   ips_bench /tmp/snort-web.re.json shared/data/pcap/generated/http-trace.pcap [runs]
//
// Every rule that has regex items becomes one Match: header ETH_TYPE 0x0800, IP_PROTO 6,
// TCP_DST 80 (the trace's server port; the rules are flow:to_server), and one payload
// pattern per content/pcre item (all must match; their order in the packet is not
// checked). Items Hyperscan rejects drop their rule (reported). The trace is preloaded
// and pushed in batches of 32 through the element; prints Gbps and Mpps per second of
// thread CPU time, the compile time, how many packets matched a rule, and the same
// figures for the block with "prefilter": false (one single-stage database), measured
// alternately in the same run.
#include <hs/hs.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "../tests/blocks_classify/classbench.hh"
#include "engine/element.hh"
#include "engine/pool.hh"

using namespace obi;

namespace {

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

bool hs_accepts(const std::string& re) {
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  if (hs_compile(re.c_str(), HS_FLAG_SINGLEMATCH | HS_FLAG_ALLOWEMPTY, HS_MODE_BLOCK, nullptr, &db, &err) !=
      HS_SUCCESS) {
    hs_free_compile_error(err);
    return false;
  }
  hs_free_database(db);
  return true;
}

class Counting final : public Element {
 public:
  uint64_t packets = 0;
  uint16_t output_count() const override { return 0; }
  void push(uint16_t, Batch& b, Context&, const Outputs&) override {
    packets += b.n;
    b.n = 0;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: ips_bench RULES.re.json TRACE.pcap [runs]\n");
    return 2;
  }
  int runs = argc > 3 ? std::atoi(argv[3]) : 5;
  std::ifstream in(argv[1]);
  nlohmann::json rules = nlohmann::json::parse(in);
  nlohmann::json match = nlohmann::json::array();
  size_t rejected = 0;
  const char* only = std::getenv("IPS_BENCH_ONLY");  // "content": leave out the rules with pcre
  for (const auto& r : rules) {
    if (only && std::string(only) == "content" && r.value("has_pcre", false)) continue;
    if (!r.contains("item_regexes") || !r["item_regexes"].is_array() || r["item_regexes"].empty() ||
        !r["skipped"].is_null())
      continue;
    nlohmann::json pm = nlohmann::json::array();
    bool ok = true;
    nlohmann::json items = r["item_regexes"];
    if (only && std::string(only) == "longest") {  // experiment: the longest item only
      nlohmann::json best = items[0];
      for (const auto& it : items)
        if (it.get<std::string>().size() > best.get<std::string>().size()) best = it;
      items = nlohmann::json::array({best});
    }
    for (const auto& item : items) {
      std::string re = item.get<std::string>();
      if (!hs_accepts(re)) {
        ok = false;
        break;
      }
      pm.push_back({{"pattern", re}, {"is_regex", true}});
    }
    if (!ok) {
      ++rejected;
      continue;
    }
    match.push_back(
        {{"header_match", {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 80}}}, {"payload_match", pm}});
  }
  ElementFactory factory = find_element("HeaderPayloadClassifier");
  if (!factory) {
    std::fprintf(stderr, "HeaderPayloadClassifier not registered\n");
    return 1;
  }
  // the block as configured by default (two-stage prefilter) and, for comparison in the
  // same run, with every pattern in one single-stage database
  nlohmann::json cfg = {{"match", match}};
  nlohmann::json cfg_single = {{"match", match}, {"prefilter", false}};
  auto t0 = std::chrono::steady_clock::now();
  auto ips = factory(ElementArgs{"ips", "HeaderPayloadClassifier", cfg, 1});
  double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  auto single = factory(ElementArgs{"ips1", "HeaderPayloadClassifier", cfg_single, 1});

  auto frames = obi::classbench::pcap_frames(argv[2]);
  PacketPool pool(static_cast<uint32_t>(frames.size()));
  std::vector<Packet*> pkts;
  std::vector<uint32_t> lens;
  uint64_t bytes = 0;
  for (auto& f : frames) {
    pkts.push_back(pool.alloc_copy(f.data(), static_cast<uint32_t>(f.size())));
    lens.push_back(static_cast<uint32_t>(f.size()));
    bytes += f.size();
  }
  Counting sink;
  Node sink_node{&sink, {}};
  std::vector<Link> links(ips->output_count(), Link{&sink_node, 0});
  Outputs outs{links.data(), static_cast<uint16_t>(links.size())};
  Context ctx;
  ctx.pool = &pool;

  // Dropped packets go back to the pool: take them out again after each pass (the bytes
  // stay in place; data/len are restored before every push).
  std::vector<double> gbps, mpps, gbps_single;
  uint64_t matched_per_pass = 0, matched_single = 0;
  for (int r = 0; r < 2 * runs; ++r) {
    Element* e = r % 2 ? single.get() : ips.get();
    sink.packets = 0;
    const int passes = 3;
    double start = cpu_seconds();
    for (int pass = 0; pass < passes; ++pass) {
      for (size_t i = 0; i < pkts.size(); i += kBatchSize) {
        Batch b;
        for (size_t j = i; j < std::min(pkts.size(), i + kBatchSize); ++j) {
          pkts[j]->data = pkts[j]->buf + kHeadroom;
          pkts[j]->len = lens[j];
          pkts[j]->parsed = false;
          b.add(pkts[j]);
        }
        e->push(0, b, ctx, outs);
      }
      while (pool.available()) pool.alloc();  // the drops, reclaimed (still listed in pkts)
    }
    double s = cpu_seconds() - start;
    if (r % 2) {
      gbps_single.push_back(passes * bytes * 8 / s / 1e9);
      matched_single = sink.packets / passes;
      continue;
    }
    gbps.push_back(passes * bytes * 8 / s / 1e9);
    mpps.push_back(passes * pkts.size() / s / 1e6);
    matched_per_pass = sink.packets / passes;
  }
  std::sort(gbps_single.begin(), gbps_single.end());
  std::sort(gbps.begin(), gbps.end());
  std::sort(mpps.begin(), mpps.end());
  std::printf(
      "{\"bench\":\"ips\",\"rules\":%zu,\"rules_rejected_by_hyperscan\":%zu,\"build_ms\":%.1f,\"packets\":%zu,"
      "\"matched_packets\":%llu,\"gbps_median\":%.2f,\"gbps_min\":%.2f,\"gbps_max\":%.2f,\"mpps_median\":%.3f,"
      "\"scans\":%s,\"second_scans\":%s,\"single_stage_gbps_median\":%.2f,\"single_stage_matched\":%llu}\n",
      match.size(), rejected, build_ms, pkts.size(), (unsigned long long)matched_per_pass, gbps[gbps.size() / 2],
      gbps.front(), gbps.back(), mpps[mpps.size() / 2], ips->read("scans").dump().c_str(),
      ips->read("second_scans").dump().c_str(), gbps_single[gbps_single.size() / 2],
      (unsigned long long)matched_single);
  return 0;
}
