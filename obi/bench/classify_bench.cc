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
//
// Then the lookup engines side by side on the same rules and trace, in the same run, each
// measured loop parsing the headers afresh (as a real source would): the bit-vector
// RuleClassifier (batched and per packet), MultiClassifier once its rte_acl structure is
// live (what HeaderClassifier uses, key built from the packet's fields), and a reference
// rte_acl context on the classic 5-tuple layout (proto, src, dst, ports, as DPDK's
// l3fwd-acl) with keys built from the packet. All must agree on every packet (and with
// the trace's .firstmatch file); prints ns/packet, Mpps, compile ms of the bit vectors
// and build ms of the ACL contexts.
//
// Then MultiClassifier through one worker's flow cache (what HeaderClassifier does on a
// worker), on the trace as it is (12,895 distinct 5-tuples in 45,607 packets, replayed
// `passes` times) and on the same packets made into new flows (each packet's source port,
// or for packets without ports its source address, rewritten so that no 5-tuple repeats
// within a pass: 45,607 flows, 5.6x the cache), each against the uncached lookup in the
// same run (and, on the trace, against the reference rte_acl lookup above); the cached
// answers must agree with the uncached ones on every packet.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "../tests/blocks_classify/classbench.hh"
#include "classify/HeaderClassifier.hh"
#include "engine/element.hh"
#include "engine/pool.hh"
#include "lib/flow_cache.hh"
#include "lib/multi_classifier.hh"
#include "lib/rule_classifier.hh"

#include <rte_acl.h>

#include "io/dpdk.hh"

using namespace obi;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

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

// Reference: rte_acl on the 5-tuple layout of DPDK's l3fwd-acl, keys from the packet.
struct FiveTupleKey {
  uint8_t proto;
  uint8_t pad[3];
  uint32_t src, dst;      // network byte order
  uint16_t sport, dport;  // network byte order
};

enum { F_PROTO, F_SRC, F_DST, F_SPORT, F_DPORT, F_NUM };
RTE_ACL_RULE_DEF(FiveTupleRule, F_NUM);

struct FiveTupleAcl {
  rte_acl_ctx* ctx = nullptr;
  double build_ms = 0;

  bool build(const std::vector<openbox::HeaderMatch>& rules) {
    std::string why;
    if (!obi::io::dpdk_ensure_light(why)) {
      std::fprintf(stderr, "%s\n", why.c_str());
      return false;
    }
    rte_acl_param prm{};
    prm.name = "bench_5tuple";
    prm.socket_id = SOCKET_ID_ANY;
    prm.rule_size = RTE_ACL_RULE_SZ(F_NUM);
    prm.max_rule_num = static_cast<uint32_t>(rules.size());
    auto t0 = Clock::now();
    ctx = rte_acl_create(&prm);
    if (!ctx) return false;
    std::vector<FiveTupleRule> acl(rules.size());
    for (size_t i = 0; i < rules.size(); ++i) {
      FiveTupleRule& r = acl[i];
      r = FiveTupleRule{};
      r.data.category_mask = 1;
      r.data.priority = static_cast<int32_t>(rules.size() - i);
      r.data.userdata = static_cast<uint32_t>(i + 1);
      r.field[F_SPORT].mask_range.u16 = 0xffff;
      r.field[F_DPORT].mask_range.u16 = 0xffff;
      for (const auto& fm : rules[i].fields) {
        const auto& t = fm.terms.at(0);
        switch (fm.field) {
          case openbox::MatchField::IP_PROTO:
            r.field[F_PROTO].value.u8 = static_cast<uint8_t>(t.value);
            r.field[F_PROTO].mask_range.u8 = static_cast<uint8_t>(t.mask);
            break;
          case openbox::MatchField::IPV4_SRC:
          case openbox::MatchField::IPV4_DST: {
            int f = fm.field == openbox::MatchField::IPV4_SRC ? F_SRC : F_DST;
            r.field[f].value.u32 = static_cast<uint32_t>(t.value);
            r.field[f].mask_range.u32 = static_cast<uint32_t>(__builtin_popcount(static_cast<uint32_t>(t.mask)));
            break;
          }
          case openbox::MatchField::TCP_SRC:
          case openbox::MatchField::UDP_SRC:
          case openbox::MatchField::TCP_DST:
          case openbox::MatchField::UDP_DST: {
            bool src = fm.field == openbox::MatchField::TCP_SRC || fm.field == openbox::MatchField::UDP_SRC;
            uint16_t lo = static_cast<uint16_t>(t.kind == openbox::MatchTerm::Kind::kRange ? t.min : t.value);
            uint16_t hi = static_cast<uint16_t>(t.kind == openbox::MatchTerm::Kind::kRange ? t.max : t.value);
            r.field[src ? F_SPORT : F_DPORT].value.u16 = lo;
            r.field[src ? F_SPORT : F_DPORT].mask_range.u16 = hi;
            break;
          }
          default: break;  // ETH_TYPE: the trace is IPv4
        }
      }
    }
    if (rte_acl_add_rules(ctx, reinterpret_cast<const rte_acl_rule*>(acl.data()), static_cast<uint32_t>(acl.size())) !=
        0)
      return false;
    rte_acl_config cfg{};
    cfg.num_categories = 1;
    cfg.num_fields = F_NUM;
    cfg.defs[F_PROTO] = {RTE_ACL_FIELD_TYPE_BITMASK, 1, F_PROTO, 0, offsetof(FiveTupleKey, proto)};
    cfg.defs[F_SRC] = {RTE_ACL_FIELD_TYPE_MASK, 4, F_SRC, 1, offsetof(FiveTupleKey, src)};
    cfg.defs[F_DST] = {RTE_ACL_FIELD_TYPE_MASK, 4, F_DST, 2, offsetof(FiveTupleKey, dst)};
    cfg.defs[F_SPORT] = {RTE_ACL_FIELD_TYPE_RANGE, 2, F_SPORT, 3, offsetof(FiveTupleKey, sport)};
    cfg.defs[F_DPORT] = {RTE_ACL_FIELD_TYPE_RANGE, 2, F_DPORT, 3, offsetof(FiveTupleKey, dport)};
    if (rte_acl_build(ctx, &cfg) != 0) return false;
    build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return true;
  }

  void classify_batch(Packet* const* pkts, uint32_t n, int32_t* out) const {
    FiveTupleKey keys[kBatchSize];
    const uint8_t* data[kBatchSize];
    uint32_t res[kBatchSize];
    for (uint32_t i = 0; i < n; ++i) {
      Packet& p = *pkts[i];
      const Headers& h = p.headers();
      FiveTupleKey& k = keys[i];
      k = FiveTupleKey{};
      if (h.l3 != kNoOffset && h.l3 + 20u <= p.len) {
        k.proto = h.ip_proto;
        std::memcpy(&k.src, p.data + h.l3 + 12, 4);
        std::memcpy(&k.dst, p.data + h.l3 + 16, 4);
        if (h.l4 != kNoOffset && h.l4 + 4u <= p.len) {
          std::memcpy(&k.sport, p.data + h.l4, 2);
          std::memcpy(&k.dport, p.data + h.l4 + 2, 2);
        }
      }
      data[i] = &k.proto;
    }
    rte_acl_classify(ctx, data, res, n, 1);
    for (uint32_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(res[i]) - 1;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : obi::classbench::data_dir();
  int runs = argc > 2 ? std::atoi(argv[2]) : 5;

  struct Set {
    const char* label;
    std::string file;
    size_t limit;
  };
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
    std::printf(
        "{\"bench\":\"compile\",\"set\":\"%s\",\"rules\":%zu,\"compile_ms_median\":%.2f,\"compile_ms_min\":%.2f,"
        "\"dims\":%u,\"intervals\":%llu,\"classes\":%llu,\"mbytes\":%.1f}\n",
        s.label, rules.size(), median(t), *std::min_element(t.begin(), t.end()), info.dims,
        (unsigned long long)info.intervals, (unsigned long long)info.classes, info.bytes / 1048576.0);
  }

  // Throughput on the fw-4560 trace.
  auto frames = obi::classbench::pcap_frames(dir + "/fw-4560.trace.pcap");
  PacketPool pool(static_cast<uint32_t>(frames.size()));
  std::vector<Packet*> pkts;
  for (auto& f : frames) {
    pkts.push_back(pool.alloc_copy(f.data(), static_cast<uint32_t>(f.size())));
    pkts.back()->flow_hash = flow_hash(*pkts.back());  // as a source sets it
  }
  nlohmann::json cfg = {{"match", obi::classbench::classbench_rules(dir + "/fw-4560.classbench")}};
  ElementFactory factory = find_element("HeaderClassifier");
  if (!factory) {
    std::fprintf(stderr, "HeaderClassifier not registered\n");
    return 1;
  }
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
        for (size_t j = i; j < std::min(n, i + kBatchSize); ++j) {
          pkts[j]->parsed = false;
          b.add(pkts[j]);
        }
        ctx.now_ns = static_cast<uint64_t>(Clock::now().time_since_epoch().count());
        if (classify) fw->push(0, b, ctx, outs);
        else {
          for (uint32_t k = 0; k < b.n; ++k) b.pkts[k]->headers();
          b.n = 0;
        }
      }
    }
    return passes * n / (cpu_seconds() - start) / 1e6;
  };
  // The classifier alone, batch-pipelined (what the element uses) vs one packet at a time,
  // measured alternately: the gain of the batch stages' prefetching.
  const obi::blocks::RuleClassifier rc(static_cast<const obi::blocks::HeaderClassifierElement&>(*fw).header_sets()[0]);
  auto run_raw = [&](bool batched) {
    double start = cpu_seconds();
    int32_t res[kBatchSize];
    uint64_t sum = 0;
    for (int pass = 0; pass < passes; ++pass)
      for (size_t i = 0; i < n; i += kBatchSize) {
        uint32_t m = static_cast<uint32_t>(std::min<size_t>(kBatchSize, n - i));
        for (uint32_t j = 0; j < m; ++j) pkts[i + j]->parsed = false;
        if (batched) rc.classify_batch(&pkts[i], m, res);
        else
          for (uint32_t j = 0; j < m; ++j) res[j] = rc.classify(*pkts[i + j]);
        for (uint32_t j = 0; j < m; ++j) sum += static_cast<uint32_t>(res[j]);
      }
    if (sum == 42) std::printf(" ");  // keep the results alive
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
  std::printf(
      "{\"bench\":\"firewall\",\"rules\":4560,\"packets\":%zu,\"element_build_ms\":%.1f,\"mpps_median\":%.2f,"
      "\"mpps_min\":%.2f,\"mpps_max\":%.2f,\"ns_per_packet\":%.1f,\"parse_only_mpps\":%.2f,\"ratio_to_parse_only\":%.3f}\n",
      n, build_ms, f, *std::min_element(fwm.begin(), fwm.end()), *std::max_element(fwm.begin(), fwm.end()), 1e3 / f, b,
      f / b);
  // --- lookup engines side by side ------------------------------------------------
  std::vector<openbox::HeaderMatch> fw_rules;
  for (auto& j : obi::classbench::classbench_rules(dir + "/fw-4560.classbench"))
    fw_rules.push_back(openbox::parse_header_match(j));
  obi::blocks::RuleClassifier bv;
  double bv_t0 = cpu_seconds();
  bv.compile(fw_rules);
  double bv_compile_ms = (cpu_seconds() - bv_t0) * 1e3;
  obi::blocks::MultiClassifier mc;
  auto mc_t0 = Clock::now();
  mc.compile({fw_rules});
  double mc_compile_ms = ms_since(mc_t0);
  bool ready = mc.wait_ready(std::chrono::seconds(120));
  double live_ms = ms_since(mc_t0);
  if (!ready) {
    std::fprintf(stderr, "ACL structure not live: %s\n", mc.engine_reason().c_str());
    return 1;
  }
  FiveTupleAcl ref;
  if (!ref.build(fw_rules)) {
    std::fprintf(stderr, "reference rte_acl build failed\n");
    return 1;
  }

  // every packet: all engines agree (and with the .firstmatch file)
  std::vector<int> expected;
  try {
    expected = obi::classbench::firstmatch(dir + "/fw-4560.trace.firstmatch");
  } catch (...) {}
  size_t disagree = 0, firstmatch_wrong = 0;
  {
    int32_t a[kBatchSize], b[kBatchSize], c[kBatchSize];
    for (size_t i = 0; i < n; i += kBatchSize) {
      uint32_t m = static_cast<uint32_t>(std::min<size_t>(kBatchSize, n - i));
      for (uint32_t j = 0; j < m; ++j) pkts[i + j]->parsed = false;
      bv.classify_batch(&pkts[i], m, a);
      mc.classify_batch(&pkts[i], m, b);
      ref.classify_batch(&pkts[i], m, c);
      for (uint32_t j = 0; j < m; ++j) {
        disagree += a[j] != b[j] || a[j] != c[j] || a[j] != bv.classify(*pkts[i + j]);
        if (expected.size() == n) firstmatch_wrong += a[j] != expected[i + j];
      }
    }
  }
  auto timed = [&](auto&& classify) {
    int32_t res[kBatchSize];
    uint64_t sum = 0;
    double start = cpu_seconds();
    for (int pass = 0; pass < passes; ++pass)
      for (size_t i = 0; i < n; i += kBatchSize) {
        uint32_t m = static_cast<uint32_t>(std::min<size_t>(kBatchSize, n - i));
        for (uint32_t j = 0; j < m; ++j) pkts[i + j]->parsed = false;  // parse afresh, like a source
        classify(&pkts[i], m, res);
        for (uint32_t j = 0; j < m; ++j) sum += static_cast<uint32_t>(res[j]);
      }
    double ns = (cpu_seconds() - start) * 1e9 / (double(passes) * n);
    if (sum == 42) std::printf(" ");
    return ns;
  };
  std::vector<double> t_bvb, t_bvp, t_mc, t_ref, t_parse;
  for (int r = 0; r < runs; ++r) {
    t_parse.push_back(timed([&](Packet* const* p, uint32_t m, int32_t* o) {
      for (uint32_t j = 0; j < m; ++j) {
        p[j]->headers();
        o[j] = 0;
      }
    }));
    t_bvb.push_back(timed([&](Packet* const* p, uint32_t m, int32_t* o) { bv.classify_batch(p, m, o); }));
    t_bvp.push_back(timed([&](Packet* const* p, uint32_t m, int32_t* o) {
      for (uint32_t j = 0; j < m; ++j) o[j] = bv.classify(*p[j]);
    }));
    // the two ACL lookups alternate which goes first, so that neither always inherits the
    // other's cache state
    auto run_mc = [&] {
      t_mc.push_back(timed([&](Packet* const* p, uint32_t m, int32_t* o) { mc.classify_batch(p, m, o); }));
    };
    auto run_ref = [&] {
      t_ref.push_back(timed([&](Packet* const* p, uint32_t m, int32_t* o) { ref.classify_batch(p, m, o); }));
    };
    if (r % 2) {
      run_ref();
      run_mc();
    } else {
      run_mc();
      run_ref();
    }
  }
  auto line = [&](const char* engine, const std::vector<double>& t, const char* extra) {
    double ns = median(t);
    std::printf(
        "{\"bench\":\"lookup\",\"rules\":%zu,\"packets\":%zu,\"engine\":\"%s\",\"ns_per_packet_median\":%.1f,"
        "\"ns_per_packet_min\":%.1f,\"mpps_median\":%.2f%s}\n",
        fw_rules.size(), n, engine, ns, *std::min_element(t.begin(), t.end()), 1e3 / ns, extra);
  };
  char buf[256];
  line("parse_only", t_parse, "");
  std::snprintf(buf, sizeof buf, ",\"compile_ms\":%.2f", bv_compile_ms);
  line("bitvector_batched", t_bvb, buf);
  line("bitvector_per_packet", t_bvp, buf);
  auto st = mc.stats();
  std::snprintf(
      buf, sizeof buf,
      ",\"served_by\":\"%s\",\"compile_ms\":%.2f,\"acl_build_ms\":%.1f,\"acl_live_after_ms\":%.1f,\"acl_rules\":%u,\"key_bytes\":%u",
      mc.engine(), mc_compile_ms, st.acl_build_ms, live_ms, st.acl_rules, st.key_bytes);
  line("multiclassifier_acl", t_mc, buf);
  std::snprintf(buf, sizeof buf, ",\"acl_build_ms\":%.1f,\"ratio_multiclassifier_to_ref\":%.3f", ref.build_ms,
                median(t_mc) / median(t_ref));
  line("rte_acl_5tuple_reference", t_ref, buf);
  std::printf(
      "{\"bench\":\"lookup_agreement\",\"packets\":%zu,\"disagreements\":%zu,\"firstmatch_checked\":%s,\"firstmatch_wrong\":%zu}\n",
      n, disagree, expected.size() == n ? "true" : "false", firstmatch_wrong);

  // --- flow cache: the trace as it is, and every packet a new flow ---------------------
  std::vector<Packet*> fresh;
  PacketPool fresh_pool(static_cast<uint32_t>(n));
  for (size_t i = 0; i < n; ++i) {
    Packet* q = fresh_pool.alloc_copy(pkts[i]->data, pkts[i]->len);
    const Headers& h = q->headers();
    if (h.l4 != kNoOffset && (h.ip_proto == 6 || h.ip_proto == 17) && h.l4 + 4u <= q->len) {
      q->data[h.l4] = static_cast<uint8_t>(i >> 8);
      q->data[h.l4 + 1] = static_cast<uint8_t>(i);
    } else if (h.eth_type == 0x0800 && h.l3 != kNoOffset) {
      q->data[h.l3 + 14] = static_cast<uint8_t>(i >> 8);
      q->data[h.l3 + 15] = static_cast<uint8_t>(i);
    }
    q->parsed = false;
    q->flow_hash = flow_hash(*q);
    fresh.push_back(q);
  }
  // cached and uncached answers agree on every packet of both, over three passes
  size_t cache_disagree = 0;
  for (const auto* set : {&pkts, &fresh})
    for (int pass = 0; pass < 3; ++pass) {
      int32_t a[kBatchSize], b[kBatchSize];
      for (size_t i = 0; i < n; i += kBatchSize) {
        uint32_t m = static_cast<uint32_t>(std::min<size_t>(kBatchSize, n - i));
        for (uint32_t j = 0; j < m; ++j) (*set)[i + j]->parsed = false;
        mc.classify_batch(&(*set)[i], m, a);
        mc.classify_batch(&(*set)[i], m, b, 0);
        for (uint32_t j = 0; j < m; ++j) cache_disagree += a[j] != b[j];
      }
    }
  auto timed_on = [&](const std::vector<Packet*>& set, auto&& classify) {
    int32_t res[kBatchSize];
    uint64_t sum = 0;
    double start = cpu_seconds();
    for (int pass = 0; pass < passes; ++pass)
      for (size_t i = 0; i < n; i += kBatchSize) {
        uint32_t m = static_cast<uint32_t>(std::min<size_t>(kBatchSize, n - i));
        for (uint32_t j = 0; j < m; ++j) set[i + j]->parsed = false;
        classify(&set[i], m, res);
        for (uint32_t j = 0; j < m; ++j) sum += static_cast<uint32_t>(res[j]);
      }
    double ns = (cpu_seconds() - start) * 1e9 / (double(passes) * n);
    if (sum == 42) std::printf(" ");
    return ns;
  };
  auto uncached = [&](Packet* const* p, uint32_t m, int32_t* o) { mc.classify_batch(p, m, o); };
  auto cached = [&](Packet* const* p, uint32_t m, int32_t* o) { mc.classify_batch(p, m, o, 0); };
  for (const auto& [label, set] :
       {std::pair<const char*, const std::vector<Packet*>*>{"trace", &pkts}, {"new_flows", &fresh}}) {
    std::vector<double> t_off, t_on, rate;
    for (int r = 0; r < runs; ++r) {
      auto before = mc.cache_stats();
      if (r % 2) {
        t_on.push_back(timed_on(*set, cached));
        t_off.push_back(timed_on(*set, uncached));
      } else {
        t_off.push_back(timed_on(*set, uncached));
        t_on.push_back(timed_on(*set, cached));
      }
      auto after = mc.cache_stats();
      const double looked =
          double(after.hits + after.misses + after.bypassed - before.hits - before.misses - before.bypassed);
      rate.push_back(looked > 0 ? (after.hits - before.hits) / looked : 0);
    }
    auto st2 = mc.cache_stats();
    std::printf(
        "{\"bench\":\"flow_cache\",\"packets\":\"%s\",\"entries\":%u,\"uncached_ns_median\":%.1f,\"cached_ns_median\":%.1f,"
        "\"cached_ns_min\":%.1f,\"uncached_ns_min\":%.1f,\"hit_rate_median\":%.3f,\"ratio_cached_to_uncached\":%.3f,"
        "\"bypassed_total\":%llu,\"ratio_cached_to_rte_acl_reference\":%.3f}\n",
        label, st2.entries, median(t_off), median(t_on), *std::min_element(t_on.begin(), t_on.end()),
        *std::min_element(t_off.begin(), t_off.end()), median(rate), median(t_on) / median(t_off),
        (unsigned long long)st2.bypassed, median(t_on) / median(t_ref));
  }
  std::printf("{\"bench\":\"flow_cache_agreement\",\"packets\":%zu,\"disagreements\":%zu}\n", 6 * n, cache_disagree);
  return disagree || firstmatch_wrong || cache_disagree ? 2 : 0;
}
