// Fusion of header lookups (engine/fusion.hh, HeaderClassifier `fuse`): the same graph
// with and without `fuse` must give, per packet, the same terminal, the same alerts and
// the same per-rule counts. Random rule sets and packets (fixed seeds), FW+FW on the real
// fw-4560 rules and trace, FW -> HeaderPayloadClassifier, targets also reached by an
// unfused path, swaps that carry or rebuild the fusing block, bad `fuse` configs, and
// export-click ignoring the hint.
//
// Test blocks registered here: FeedSource (emits the frames of `g_frames` once, packet i
// with timestamp i), FeedPass (class modifier, forwards: a non-static block on a path),
// FeedSink (config id: records which packet reached which sink).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "../blocks_classify/classbench.hh"
#include "catalogue/catalogue.hh"
#include "classify/HeaderClassifier.hh"
#include "engine/events.hh"
#include "engine/graph.hh"
#include "engine/pool.hh"
#include "engine/testing.hh"
#include "engine/worker.hh"
#include "io/pcap.hh"

using namespace obi;
using namespace obi::testing;
using nlohmann::json;

namespace {

std::vector<Bytes> g_frames;
std::vector<int> g_terminal;  // per packet: id of the sink it reached, -1 none
unsigned g_run = 0;           // sources restart at each run (carried ones too)

class FeedSource final : public Element {
 public:
  explicit FeedSource(const ElementArgs&) {}
  uint16_t input_count() const override { return 0; }
  bool is_source() const override { return true; }
  void push(uint16_t, Batch& b, Context& ctx, const Outputs&) override { ctx.drop(b); }
  bool poll(Batch& b, Context& ctx) override {
    if (run_ != g_run) {
      run_ = g_run;
      next_ = 0;
    }
    while (b.n < kBatchSize && next_ < g_frames.size()) {
      Packet* p = ctx.pool->alloc_copy(g_frames[next_].data(), static_cast<uint32_t>(g_frames[next_].size()));
      if (!p) break;
      p->timestamp_ns = next_++;
      b.add(p);
    }
    return next_ < g_frames.size();
  }

 private:
  size_t next_ = 0;
  unsigned run_ = 0;
};

class FeedPass final : public Element {
 public:
  explicit FeedPass(const ElementArgs&) {}
  void push(uint16_t, Batch& b, Context& ctx, const Outputs& out) override { out.emit(0, b, ctx); }
};

class FeedSink final : public Element {
 public:
  explicit FeedSink(const ElementArgs& a) : id_(a.config.value("id", 0)) {}
  uint16_t output_count() const override { return 0; }
  void push(uint16_t, Batch& b, Context& ctx, const Outputs&) override {
    for (uint32_t i = 0; i < b.n; ++i) {
      int& t = g_terminal.at(b.pkts[i]->timestamp_ns);
      t = t == -1 ? id_ : -2;  // -2: a packet reached two sinks
      ctx.pool->free(b.pkts[i]);
    }
    b.n = 0;
  }

 private:
  int id_;
};

void register_feed_elements() {
  static bool done = false;
  if (done) return;
  done = true;
  register_element("FeedSource",
                   [](const ElementArgs& a) -> std::unique_ptr<Element> { return std::make_unique<FeedSource>(a); });
  register_element("FeedPass",
                   [](const ElementArgs& a) -> std::unique_ptr<Element> { return std::make_unique<FeedPass>(a); });
  register_element("FeedSink",
                   [](const ElementArgs& a) -> std::unique_ptr<Element> { return std::make_unique<FeedSink>(a); });
  auto desc = [](const char* name, const char* cls, int in, int out, json config) {
    return json{
        {"name", name},          {"class", cls},     {"spec", "extension"},           {"required", false},
        {"description", "test"}, {"config", config}, {"read_handles", json::array()}, {"write_handles", json::array()},
        {"inputs", in},          {"outputs", out}};
  };
  Catalogue& c = Catalogue::builtin();
  c.add(Catalogue::parse(desc("FeedSource", "terminal", 0, 1, json::array())));
  c.add(Catalogue::parse(desc("FeedPass", "modifier", 1, 1, json::array({{{"name", "tag"}, {"type", "integer"}}}))));
  c.add(Catalogue::parse(desc("FeedSink", "terminal", 1, 0, json::array({{{"name", "id"}, {"type", "integer"}}}))));
}

class Recorder final : public EventSink {
 public:
  void post(Kind, std::string_view origin, std::string_view, std::string_view, int, Packet& p, int, unsigned,
            uint64_t) override {
    events.emplace(std::string(origin), p.timestamp_ns);
  }
  std::multiset<std::pair<std::string, uint64_t>> events;
};

struct Outcome {
  std::vector<int> terminal;
  std::multiset<std::pair<std::string, uint64_t>> alerts;
  std::map<std::string, json> counts;  // per classifier: count (+ no_match)
  uint64_t drops = 0;
  uint32_t leaked = 0;
};

// Runs every frame of g_frames once through `g` (one worker).
Outcome run_graph(const CompiledGraph& g) {
  g_terminal.assign(g_frames.size(), -1);
  ++g_run;
  PacketPool pool(256);
  Recorder rec;
  Context ctx;
  ctx.pool = &pool;
  ctx.events = &rec;
  std::vector<uint8_t> done(g.sources.size(), 0);
  while (!std::all_of(done.begin(), done.end(), [](uint8_t d) { return d; })) run_round(g, ctx, done.data());
  Outcome o;
  o.terminal = g_terminal;
  o.alerts = std::move(rec.events);
  o.drops = ctx.drops;
  o.leaked = pool.capacity() - pool.available();
  for (size_t i = 0; i < g.specs.size(); ++i) {
    const std::string& t = g.specs[i].type;
    if (t == "HeaderClassifier")
      o.counts[g.specs[i].name] = {g.elements[i]->read("count"), g.elements[i]->read("no_match")};
    if (t == "HeaderPayloadClassifier") o.counts[g.specs[i].name] = g.elements[i]->read("count");
  }
  return o;
}

std::unique_ptr<CompiledGraph> compile(const json& graph, const CompiledGraph* previous = nullptr,
                                       bool fold_statics = true) {
  register_feed_elements();
  CompileOptions co;
  co.previous = previous;
  co.fold_statics = fold_statics;
  return compile_graph(graph, co);
}

// Links that carry folded statics (Alert, Log applied in place).
size_t folded_links(const CompiledGraph& g) {
  size_t n = 0;
  for (const auto& outs : g.links)
    for (const Link& l : outs) n += l.inlined > 0;
  return n;
}

// The graph with `fuse` lists removed.
json unfused(json graph) {
  for (json& b : graph["blocks"])
    if (b.contains("config")) b["config"].erase("fuse");
  return graph;
}

void expect_same(const Outcome& a, const Outcome& b, const std::string& what) {
  EXPECT_EQ(a.terminal, b.terminal) << what;
  EXPECT_EQ(a.alerts, b.alerts) << what;
  EXPECT_EQ(a.counts, b.counts) << what;
  EXPECT_EQ(a.drops, b.drops) << what;
  EXPECT_EQ(a.leaked, 0u) << what;
  EXPECT_EQ(b.leaked, 0u) << what;
}

// Total of the "outputs" lists of a fusing block's `fused` handle.
size_t fused_outputs(const CompiledGraph& g, const std::string& name) {
  size_t n = 0;
  const json fused = g.find(name)->read("fused");
  for (const json& t : fused["targets"]) n += t["outputs"].size();
  return n;
}

std::string data_dir() {
  if (const char* d = std::getenv("OPENBOX_DATA")) return d;
  return std::string(OPENBOX_ROOT) + "/../shared/data";
}

json block(const std::string& name, const std::string& type, json config = json::object()) {
  return {{"name", name}, {"type", type}, {"config", config}};
}
json conn(const std::string& s, int sp, const std::string& d) { return {{"src", s}, {"src_port", sp}, {"dst", d}}; }
json alert(const std::string& name) { return block(name, "Alert", {{"alerts", json::array({{{"message", name}}})}}); }

// ---------------------------------------------------------------- random rules and packets

json random_rule(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  json r = json::object();
  if (pick(5) == 0) return pick(2) ? r : json{{"ETH_TYPE", "0x0806"}};
  r["ETH_TYPE"] = "0x0800";
  if (pick(3) == 0)
    r["IPV4_SRC"] = "10." + std::to_string(pick(2)) + "." + std::to_string(pick(4)) + ".0/" +
                    std::to_string(std::vector<int>{8, 16, 24}[pick(3)]);
  if (pick(3) == 0)
    r["IPV4_DST"] = "192.168." + std::to_string(pick(4)) + "." + std::to_string(pick(4)) + (pick(2) ? "/32" : "/30");
  if (pick(2)) {
    const bool tcp = pick(2);
    r["IP_PROTO"] = tcp ? 6 : 17;
    const std::string f = tcp ? "TCP_DST" : "UDP_DST";
    int lo = pick(8), hi = lo + pick(4);
    if (pick(2)) r[f] = lo == hi ? json(lo) : json("[" + std::to_string(lo) + ":" + std::to_string(hi) + "]");
    if (pick(4) == 0) r[tcp ? "TCP_SRC" : "UDP_SRC"] = pick(4);
  }
  return r;
}

Bytes random_frame(std::mt19937& rng, bool payload) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  Frame f;
  f.src_ip = "10." + std::to_string(pick(2)) + "." + std::to_string(pick(4)) + "." + std::to_string(pick(3));
  f.dst_ip = "192.168." + std::to_string(pick(4)) + "." + std::to_string(pick(4));
  f.proto = std::vector<uint8_t>{6, 17, 6, 17, 1}[pick(5)];
  f.src_port = static_cast<uint16_t>(pick(5));
  f.dst_port = static_cast<uint16_t>(pick(12));
  if (payload) {
    static const char* words[] = {"hello", "evil", "GET /etc/passwd", "x", "attack!", "benign"};
    for (int k = pick(3); k >= 0; --k) f.payload += std::string(words[pick(6)]) + " ";
  }
  if (pick(10) == 0) f.eth_type = 0x0806;  // not IP
  return build(f);
}

// A FW-like chain: src -> c1; each output of c1 goes (at random) to an Alert then c2,
// straight to c2, through a modifier to c2 (an unfused path), to a sink, or nowhere.
// c2's outputs go to sinks, through Alerts, or nowhere. With `fuse`, c1 fuses c2.
json random_chain(std::mt19937& rng, const std::string& c2_type, const json& c2_rules) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  json r1 = json::array();
  for (int k = 1 + pick(12); k > 0; --k) r1.push_back(random_rule(rng));
  json blocks =
      json::array({block("src", "FeedSource"), block("c1", "HeaderClassifier", {{"match", r1}, {"fuse", {"c2"}}}),
                   block("c2", c2_type, {{"match", c2_rules}})});
  json conns = json::array({conn("src", 0, "c1")});
  for (size_t o = 0; o < r1.size(); ++o) {
    const std::string s = std::to_string(o);
    switch (pick(6)) {
      case 0:
      case 1:
        blocks.push_back(alert("a1_" + s));
        if (pick(2)) {
          blocks.push_back(block("l1_" + s, "Log", {{"message", "log " + s}}));
          conns.push_back(conn("c1", int(o), "l1_" + s));
          conns.push_back(conn("l1_" + s, 0, "a1_" + s));
        } else {
          conns.push_back(conn("c1", int(o), "a1_" + s));
        }
        conns.push_back(conn("a1_" + s, 0, "c2"));
        break;
      case 2: conns.push_back(conn("c1", int(o), "c2")); break;
      case 3:
        blocks.push_back(block("m1_" + s, "FeedPass"));
        conns.push_back(conn("c1", int(o), "m1_" + s));
        conns.push_back(conn("m1_" + s, 0, "c2"));
        break;
      case 4:
        blocks.push_back(block("s1_" + s, "FeedSink", {{"id", 100 + int(o)}}));
        conns.push_back(conn("c1", int(o), "s1_" + s));
        break;
      default: break;  // unconnected: dropped
    }
  }
  for (size_t o = 0; o < c2_rules.size(); ++o) {
    const std::string s = std::to_string(o);
    switch (pick(4)) {
      case 0:
        blocks.push_back(alert("a2_" + s));
        blocks.push_back(block("s2_" + s, "FeedSink", {{"id", 200 + int(o)}}));
        conns.push_back(conn("c2", int(o), "a2_" + s));
        conns.push_back(conn("a2_" + s, 0, "s2_" + s));
        break;
      case 3: break;
      default:
        blocks.push_back(block("s2_" + s, "FeedSink", {{"id", 200 + int(o)}}));
        conns.push_back(conn("c2", int(o), "s2_" + s));
    }
  }
  return {{"blocks", blocks}, {"connectors", conns}};
}

json random_hpc_rules(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  static const char* pats[] = {"evil", "passwd", "attack", "(?i)HELLO\\s"};
  json rules = json::array();
  for (int k = 1 + pick(8); k > 0; --k) {
    json m = {{"header_match", random_rule(rng)}};
    json pm = json::array();
    for (int j = pick(3); j > 0; --j) {
      int w = pick(4);
      pm.push_back({{"pattern", pats[w]}, {"is_regex", w == 3}});
    }
    m["payload_match"] = pm;
    rules.push_back(m);
  }
  return rules;
}

}  // namespace

// Random chains c1 -> ... -> `target` (rules from make_rules), each run with and without
// `fuse` on the same random frames: the outcomes must be the same, and the fused path
// must actually be taken in more than `min_fused` of the cases. The plain run also keeps
// every Alert and Log as a block of its own (no folded statics), so the comparison covers
// statics applied in place on the links as well.
template <typename MakeRules>
void check_random_chains(unsigned first_seed, unsigned last_seed, const char* target, bool payload,
                         MakeRules make_rules, size_t min_fused) {
  size_t fused_somewhere = 0, folded_somewhere = 0;
  for (unsigned seed = first_seed; seed <= last_seed; ++seed) {
    std::mt19937 rng(seed);
    json graph = random_chain(rng, target, make_rules(rng));
    g_frames.clear();
    for (int i = 0; i < 200; ++i) g_frames.push_back(random_frame(rng, payload));
    auto plain = compile(unfused(graph), nullptr, false);
    auto fused = compile(graph);
    ASSERT_EQ(folded_links(*plain), 0u);
    fused_somewhere += fused_outputs(*fused, "c1") > 0;
    folded_somewhere += folded_links(*fused) > 0;
    expect_same(run_graph(*plain), run_graph(*fused), "seed " + std::to_string(seed));
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(fused_somewhere, min_fused);
  EXPECT_GT(folded_somewhere, min_fused);
}

TEST(Fusion, RandomHeaderChainsMatchUnfused) {
  auto header_rules = [](std::mt19937& rng) {
    json r2 = json::array();
    for (int k = 1 + static_cast<int>(rng() % 12); k > 0; --k) r2.push_back(random_rule(rng));
    return r2;
  };
  check_random_chains(1, 300, "HeaderClassifier", false, header_rules, 200u);
}

TEST(Fusion, RandomPayloadTargetsMatchUnfused) {
  check_random_chains(
      1001, 1200, "HeaderPayloadClassifier", true, [](std::mt19937& rng) { return random_hpc_rules(rng); }, 100u);
}

TEST(Fusion, FusedHandleAndEngine) {
  json graph = {
      {"blocks",
       {block("src", "FeedSource"),
        block("c1", "HeaderClassifier",
              {{"match", {{{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}}, json::object()}}, {"fuse", {"c2", "ips"}}}),
        alert("a"),
        block("c2", "HeaderClassifier",
              {{"match",
                {{{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 80}},
                 {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 22}}}}}),
        block("ips", "HeaderPayloadClassifier",
              {{"match",
                {{{"header_match", {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 17}, {"UDP_DST", 53}}},
                  {"payload_match", {{{"pattern", "x"}}}}},
                 {{"header_match", json::object()}}}}})}},
      {"connectors", {conn("src", 0, "c1"), conn("c1", 0, "a"), conn("a", 0, "c2"), conn("c1", 1, "ips")}}};
  auto g = compile(graph);
  json f = g->find("c1")->read("fused");
  EXPECT_EQ(f["sets"], json({2, 2, 1, 1})) << f;
  EXPECT_EQ(f["targets"][0], json({{"name", "c2"}, {"outputs", {0}}, {"sets", {2}}})) << f;
  EXPECT_EQ(f["targets"][1], json({{"name", "ips"}, {"outputs", {1}}, {"sets", {1, 1}}})) << f;
  EXPECT_TRUE(g->find("c1")->read("engine").is_string());
  const json f2 = g->find("c2")->read("fused");
  EXPECT_EQ(f2["targets"], json::array());
}

// FW+FW: the fw-4560 rules split evenly into two classifiers, Alerts between, over the
// fw-4560 trace: each rule of the first half goes through an Alert to the second half.
TEST(Fusion, FwPlusFwOnClassBench) {
  const std::string dir = data_dir();
  std::vector<json> rules;
  try {
    rules = classbench::classbench_rules(dir + "/fw-4560.classbench");
  } catch (const std::exception& e) {
    GTEST_SKIP() << e.what();
  }
  g_frames.clear();
  io::PcapReader rd(dir + "/fw-4560.trace.pcap");
  uint64_t off = rd.begin();
  io::PcapRecord r;
  while (rd.next(off, r)) g_frames.emplace_back(r.data, r.data + r.caplen);
  ASSERT_GT(g_frames.size(), 1000u);
  const size_t half = rules.size() / 2;
  json r1 = std::vector<json>(rules.begin(), rules.begin() + static_cast<long>(half));
  json r2 = std::vector<json>(rules.begin() + static_cast<long>(half), rules.end());
  r1.push_back(json::object());  // the first firewall passes what it does not match
  json blocks =
      json::array({block("src", "FeedSource"), block("fw1", "HeaderClassifier", {{"match", r1}, {"fuse", {"fw2"}}}),
                   block("fw2", "HeaderClassifier", {{"match", r2}})});
  json conns = json::array({conn("src", 0, "fw1")});
  for (size_t o = 0; o < r1.size(); ++o) {
    if (o % 7 == 3) continue;  // some rules drop
    const std::string a = "a" + std::to_string(o);
    blocks.push_back(alert(a));
    conns.push_back(conn("fw1", int(o), a));
    conns.push_back(conn(a, 0, "fw2"));
  }
  for (size_t o = 0; o < r2.size(); ++o) {
    const std::string s = "s" + std::to_string(o);
    blocks.push_back(block(s, "FeedSink", {{"id", int(o)}}));
    conns.push_back(conn("fw2", int(o), s));
  }
  json graph = {{"blocks", blocks}, {"connectors", conns}};
  auto plain = compile(unfused(graph), nullptr, false);  // no fusion, no folded statics
  auto fused = compile(graph);
  EXPECT_GT(folded_links(*fused), r1.size() / 2);
  EXPECT_EQ(fused_outputs(*fused, "fw1"), r1.size() - (r1.size() + 3) / 7)
      << fused->find("fw1")->read("fused").dump().substr(0, 300);
  Outcome a = run_graph(*plain), b = run_graph(*fused);
  expect_same(a, b, "fw-4560");
  size_t delivered = std::count_if(a.terminal.begin(), a.terminal.end(), [](int t) { return t >= 0; });
  EXPECT_GT(delivered, 0u);
  EXPECT_GT(a.alerts.size(), 0u);
}

// A target reached both through the fusing block and directly from a second source:
// packets of the second source bring no results and are classified by the target.
TEST(Fusion, TargetAlsoReachedUnfused) {
  std::mt19937 rng(77);
  json r1 = json::array(), r2 = json::array();
  for (int k = 0; k < 8; ++k) {
    r1.push_back(random_rule(rng));
    r2.push_back(random_rule(rng));
  }
  r1.push_back(json::object());
  json blocks = json::array({block("src", "FeedSource"), block("src2", "FeedSource"),
                             block("c1", "HeaderClassifier", {{"match", r1}, {"fuse", {"c2"}}}),
                             block("c2", "HeaderClassifier", {{"match", r2}}), alert("a")});
  json conns = json::array({conn("src", 0, "c1"), conn("src2", 0, "c2"), conn("a", 0, "c2")});
  for (size_t o = 0; o < r1.size(); ++o) conns.push_back(conn("c1", int(o), "a"));
  for (size_t o = 0; o < r2.size(); ++o) {
    blocks.push_back(block("s" + std::to_string(o), "FeedSink", {{"id", int(o)}}));
    conns.push_back(conn("c2", int(o), "s" + std::to_string(o)));
  }
  json graph = {{"blocks", blocks}, {"connectors", conns}};
  g_frames.clear();
  for (int i = 0; i < 500; ++i) g_frames.push_back(random_frame(rng, false));
  // Both sources emit every frame with the same timestamps; the sink records overwrite to
  // -2 when two packets with one index reach sinks, so compare the multiset of alerts and
  // the counts, which see both copies.
  auto plain = compile(unfused(graph));
  auto fused = compile(graph);
  Outcome a = run_graph(*plain), b = run_graph(*fused);
  expect_same(a, b, "two paths");
  EXPECT_EQ(fused_outputs(*fused, "c1"), r1.size());
}

// A target every path into which is fused builds no rte_acl structure of its own (its
// lookups are the fusing block's); one also reached otherwise does, and so does a target
// carried into a graph that reaches it otherwise too.
TEST(Fusion, FedOnlyByFusionBuildsNoLookupOfItsOwn) {
  std::mt19937 rng(31);
  json r1 = json::array(), r2 = json::array();
  for (int k = 0; k < 8; ++k) {
    r1.push_back(random_rule(rng));
    r2.push_back(random_rule(rng));
  }
  r1.push_back(json::object());
  json blocks =
      json::array({block("src", "FeedSource"), block("c1", "HeaderClassifier", {{"match", r1}, {"fuse", {"c2"}}}),
                   block("c2", "HeaderClassifier", {{"match", r2}})});
  json conns = json::array({conn("src", 0, "c1")});
  for (size_t o = 0; o < r1.size(); ++o) {
    blocks.push_back(alert("a" + std::to_string(o)));
    conns.push_back(conn("c1", int(o), "a" + std::to_string(o)));
    conns.push_back(conn("a" + std::to_string(o), 0, "c2"));
  }
  for (size_t o = 0; o < r2.size(); ++o) {
    blocks.push_back(block("s" + std::to_string(o), "FeedSink", {{"id", int(o)}}));
    conns.push_back(conn("c2", int(o), "s" + std::to_string(o)));
  }
  const json fed_only = {{"blocks", blocks}, {"connectors", conns}};
  json also_direct = fed_only;
  also_direct["blocks"].push_back(block("src2", "FeedSource"));
  also_direct["connectors"].push_back(conn("src2", 0, "c2"));
  auto multi = [](const CompiledGraph& g, const char* name) -> const blocks::MultiClassifier& {
    return dynamic_cast<const blocks::HeaderClassifierElement&>(*g.find(name)).multi();
  };
  const auto kWait = std::chrono::seconds(60);

  auto g1 = compile(fed_only);
  for (auto& e : g1->elements) e->activate();
  EXPECT_EQ(g1->find("c2")->read("engine"), "fused");
  EXPECT_EQ(g1->find("c2")->settle(kWait), "fused");
  EXPECT_EQ(multi(*g1, "c2").engine_reason(), "not started");
  EXPECT_EQ(g1->find("c1")->settle(kWait), "acl");  // the fusing block builds as before

  // c2 carried into a graph where src2 reaches it directly: it starts its build then
  auto g2 = compile(also_direct, g1.get());
  ASSERT_TRUE(g2->carried[g2->by_name.at("c2")]);
  EXPECT_EQ(g2->find("c2"), g1->find("c2"));
  EXPECT_EQ(g2->find("c2")->settle(kWait), "acl");
  EXPECT_EQ(g2->find("c2")->read("engine"), "acl");

  // a fresh graph with both paths builds for c2 at activation, as an unfused block does
  auto g3 = compile(also_direct);
  EXPECT_EQ(multi(*g3, "c2").engine_reason(), "not started");  // nothing before activation
  for (auto& e : g3->elements) e->activate();
  EXPECT_EQ(g3->find("c2")->settle(kWait), "acl");

  // c1 fed only by a c0 that fuses it, while c1 fuses c2: c1 still looks up (for c2)
  json three = fed_only;
  three["blocks"].push_back(block("c0", "HeaderClassifier", {{"match", {json::object()}}, {"fuse", {"c1"}}}));
  for (json& c : three["connectors"])
    if (c["src"] == "src") c["src"] = "c0";
  three["connectors"].push_back(conn("src", 0, "c0"));
  auto g4 = compile(three);
  for (auto& e : g4->elements) e->activate();
  EXPECT_EQ(g4->find("c1")->settle(kWait), "acl");
  EXPECT_EQ(g4->find("c2")->read("engine"), "fused");
  EXPECT_EQ(fused_outputs(*g4, "c0"), 1u);

  // the answers are the unfused graph's either way
  g_frames.clear();
  for (int i = 0; i < 300; ++i) g_frames.push_back(random_frame(rng, false));
  expect_same(run_graph(*compile(unfused(fed_only))), run_graph(*compile(fed_only)), "fed only");
  expect_same(run_graph(*compile(unfused(three))), run_graph(*compile(three)), "three in a row");
}

// Swaps: an unchanged fusing block and its unchanged targets are carried; a rebuilt target
// (changed config) or a changed wiring rebuilds the fusing block, which still matches.
TEST(Fusion, SwapCarriesOrRebuilds) {
  std::mt19937 rng(5);
  json r2 = json::array();
  for (int k = 0; k < 6; ++k) r2.push_back(random_rule(rng));
  json graph = random_chain(rng, "HeaderClassifier", r2);
  while (fused_outputs(*compile(graph), "c1") == 0) graph = random_chain(rng, "HeaderClassifier", r2);
  g_frames.clear();
  for (int i = 0; i < 300; ++i) g_frames.push_back(random_frame(rng, false));
  const Outcome reference = run_graph(*compile(unfused(graph)));

  auto idx = [](const CompiledGraph& g, const std::string& n) { return g.by_name.at(n); };
  auto g1 = compile(graph);
  auto g2 = compile(graph, g1.get());
  EXPECT_TRUE(g2->carried[idx(*g2, "c1")]);
  EXPECT_TRUE(g2->carried[idx(*g2, "c2")]);
  EXPECT_EQ(g2->find("c1"), g1->find("c1"));

  // c2 rebuilt (a different config with the same rules): c1 rebuilt too.
  json changed = graph;
  for (json& b : changed["blocks"])
    if (b["name"] == "c2") b["config"]["match"].push_back(json::object());
  auto g3 = compile(changed, g2.get());
  EXPECT_FALSE(g3->carried[idx(*g3, "c2")]);
  EXPECT_FALSE(g3->carried[idx(*g3, "c1")]);
  EXPECT_NE(g3->find("c1"), g2->find("c1"));
  const json fused3 = g3->find("c1")->read("fused");
  EXPECT_EQ(fused3["targets"][0]["sets"][0], r2.size() + 1);
  // The added catch-all rule changes only where c2's unmatched packets go.

  // Same blocks, a fused output of c1 disconnected: c1 rebuilt, c2 carried.
  const json fused2 = g2->find("c1")->read("fused");
  const int cut = fused2["targets"][0]["outputs"][0].get<int>();
  json rewired = graph;
  json& cs = rewired["connectors"];
  for (size_t i = 0; i < cs.size(); ++i)
    if (cs[i]["src"] == "c1" && cs[i]["src_port"] == cut) {
      cs.erase(cs.begin() + static_cast<long>(i));
      break;
    }
  auto g4 = compile(rewired, g2.get());
  EXPECT_TRUE(g4->carried[idx(*g4, "c2")]);
  EXPECT_FALSE(g4->carried[idx(*g4, "c1")]);
  const Outcome rewired_reference = run_graph(*compile(unfused(rewired)));
  Outcome got = run_graph(*g4);
  // Counters of carried blocks carry on: compare what the packets did, not the totals.
  EXPECT_EQ(got.terminal, rewired_reference.terminal);
  EXPECT_EQ(got.alerts, rewired_reference.alerts);

  // Back to the original graph from g4: c1 carried from g4 has g4's plan, so rebuilt.
  auto g5 = compile(graph, g4.get());
  EXPECT_FALSE(g5->carried[idx(*g5, "c1")]);
  Outcome back = run_graph(*g5);
  EXPECT_EQ(back.terminal, reference.terminal);
  EXPECT_EQ(back.alerts, reference.alerts);
}

TEST(Fusion, BadFuseConfigs) {
  auto graph = [](json fuse, std::string target_type = "HeaderClassifier") {
    json target = target_type == "HeaderClassifier" ? block("c2", target_type, {{"match", {json::object()}}})
                                                    : block("c2", target_type, {{"alerts", {{{"message", "m"}}}}});
    return json{{"blocks",
                 {block("src", "FeedSource"),
                  block("c1", "HeaderClassifier", {{"match", {json::object()}}, {"fuse", fuse}}), target}},
                {"connectors", {conn("src", 0, "c1"), conn("c1", 0, "c2")}}};
  };
  auto expect_bad = [&](const json& g, const std::string& mention) {
    try {
      compile(g);
      ADD_FAILURE() << "accepted " << g.dump();
    } catch (const openbox::ProtocolError& e) {
      EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_BLOCK) << e.what();
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("fuse"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("c1"), std::string::npos) << e.what();
    }
  };
  expect_bad(graph({"nope"}), "nope");
  expect_bad(graph({"c2"}, "Alert"), "Alert");
  expect_bad(graph({"c1"}), "itself");
  expect_bad(graph({"c2", "c2"}), "twice");
  expect_bad(graph({"src"}), "src");
  expect_bad(graph(42), "fuse");
  expect_bad(graph({1}), "fuse");
  json many = json::array();
  for (int i = 0; i < 16; ++i) many.push_back("b" + std::to_string(i));
  expect_bad(graph(many), "at most 15");
  // An empty list fuses nothing.
  EXPECT_NO_THROW(compile(graph(json::array())));
}

TEST(Fusion, PacketAnnotationClearedAndCloned) {
  PacketPool pool(4);
  Packet* p = pool.alloc();
  p->pre.block = p;
  p->pre.rule[0] = 7;
  Packet* c = pool.clone(*p);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->pre.block, p);
  EXPECT_EQ(c->pre.rule[0], 7);
  pool.free(c);
  pool.free(p);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(pool.alloc()->pre.block, nullptr);
}

// `fuse` is a hint with no Click counterpart: export-click ignores it (exit 0, every block
// expressed).
TEST(Fusion, ExportClickIgnoresFuse) {
  json graph = {
      {"blocks",
       {block("src", "FromDump", {{"filename", "in.pcap"}}),
        block("c1", "HeaderClassifier",
              {{"match", {{{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}}, json::object()}}, {"fuse", {"c2"}}}),
        alert("a"),
        block("c2", "HeaderClassifier", {{"match", {{{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}, {"TCP_DST", 80}}}}}),
        block("out", "Discard")}},
      {"connectors",
       {conn("src", 0, "c1"), conn("c1", 0, "a"), conn("a", 0, "c2"), conn("c1", 1, "out"), conn("c2", 0, "out")}}};
  const std::string path = ::testing::TempDir() + "fuse_export.json";
  { std::ofstream(path) << graph.dump(); }
  const std::string cmd = std::string(OBI_BINARY) + " export-click --graph " + path + " > " + path + ".click 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(path + ".click");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("Every block is expressed"), std::string::npos) << text;
}

// Pass-through statics fold into the links that lead to them: src -> c1 -> Log -> Alert ->
// sink becomes a link c1 -> sink carrying (Log, Alert), applied in that order to each
// output's packets; a chain ending in an unconnected output still posts, then drops.
TEST(Fusion, StaticsFoldIntoLinks) {
  json blocks = json::array(
      {block("src", "FeedSource"),
       block("c1", "HeaderClassifier",
             {{"match",
               json::array({{{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 17}}, {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}}})}}),
       block("l", "Log", {{"message", "udp"}}), alert("a"), alert("t"), block("sink", "FeedSink", {{"id", 7}})});
  json conns = json::array(
      {conn("src", 0, "c1"), conn("c1", 0, "l"), conn("l", 0, "a"), conn("a", 0, "sink"), conn("c1", 1, "t")});
  json graph = {{"blocks", blocks}, {"connectors", conns}};
  auto g = compile(graph);
  const Link& udp = g->links[g->by_name.at("c1")][0];
  ASSERT_EQ(udp.inlined, 2);
  EXPECT_EQ(udp.node, &g->nodes[g->by_name.at("sink")]);
  EXPECT_EQ(udp.statics[0], g->find("l"));
  EXPECT_EQ(udp.statics[1], g->find("a"));
  const Link& tcp = g->links[g->by_name.at("c1")][1];
  ASSERT_EQ(tcp.inlined, 1);
  EXPECT_EQ(tcp.node, nullptr);

  std::mt19937 rng(5);
  g_frames.clear();
  for (int i = 0; i < 300; ++i) g_frames.push_back(random_frame(rng, false));
  Outcome folded = run_graph(*g);
  Outcome plain = run_graph(*compile(graph, nullptr, false));
  expect_same(plain, folded, "folded statics");
  size_t udp_frames = 0, tcp_frames = 0;
  for (size_t i = 0; i < g_frames.size(); ++i) {
    const bool ip = g_frames[i][12] == 0x08 && g_frames[i][13] == 0x00;
    udp_frames += ip && g_frames[i][23] == 17;
    tcp_frames += ip && g_frames[i][23] == 6;
  }
  ASSERT_GT(udp_frames, 0u);
  ASSERT_GT(tcp_frames, 0u);
  size_t at_sink = 0, log_events = 0, alert_a = 0, alert_t = 0;
  for (int t : folded.terminal) at_sink += t == 7;
  for (const auto& [origin, packet] : folded.alerts) {
    log_events += origin == "l";
    alert_a += origin == "a";
    alert_t += origin == "t";
  }
  EXPECT_EQ(at_sink, udp_frames);
  EXPECT_EQ(log_events, udp_frames);
  EXPECT_EQ(alert_a, udp_frames);
  EXPECT_EQ(alert_t, tcp_frames);
  EXPECT_EQ(folded.drops, g_frames.size() - udp_frames);  // tcp after its alert, and no match
}

// A single alert that fits a link's site is copied into the link that carries it
// (Link::site_fn / site): the events are the same, field for field and in the same order,
// as the block itself posts without folding; an alert too long for a site (or several
// alerts, or a chain of statics) stays a call on the element.
class FullRecorder final : public EventSink {
 public:
  using Entry = std::tuple<int, std::string, std::string, std::string, int, int, uint64_t, unsigned, uint64_t>;
  void post(Kind kind, std::string_view origin, std::string_view app, std::string_view message, int severity, Packet& p,
            int packet_size, unsigned worker, uint64_t now_ns) override {
    events.emplace_back(static_cast<int>(kind), std::string(origin), std::string(app), std::string(message), severity,
                        packet_size, p.timestamp_ns, worker, now_ns);
  }
  std::vector<Entry> events;
};

TEST(Fusion, AlertSitesInLinks) {
  const std::string long_message(200, 'x');
  json rules = json::array({{{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 17}},
                            {{"ETH_TYPE", "0x0800"}, {"IP_PROTO", 6}},
                            {{"ETH_TYPE", "0x0800"}},
                            json::object()});
  json blocks = json::array(
      {block("src", "FeedSource"), block("c1", "HeaderClassifier", {{"match", rules}}),
       block("udp", "Alert", {{"alerts", json::array({{{"message", "udp seen"}, {"severity", 4}, {"app_id", "fw"}}})}}),
       block("tcp", "Alert",
             {{"alerts", json::array({{{"message", "tcp seen"}, {"severity", 2}}})},
              {"attach_packet", true},
              {"packet_size", 20}}),
       block("long", "Alert", {{"alerts", json::array({{{"message", long_message}}})}}),
       block("two", "Alert",
             {{"alerts", json::array({{{"message", "first"}}, {{"message", "second"}, {"severity", 5}}})}}),
       block("sink", "FeedSink", {{"id", 3}})});
  json conns = json::array({conn("src", 0, "c1"), conn("c1", 0, "udp"), conn("udp", 0, "sink"), conn("c1", 1, "tcp"),
                            conn("tcp", 0, "sink"), conn("c1", 2, "long"), conn("long", 0, "sink"),
                            conn("c1", 3, "two"), conn("two", 0, "sink")});
  json graph = {{"blocks", blocks}, {"connectors", conns}};
  auto folded = compile(graph);
  const auto& links = folded->links[folded->by_name.at("c1")];
  ASSERT_EQ(links.size(), 4u);
  for (const Link& l : links) {
    ASSERT_EQ(l.inlined, 1);
    EXPECT_EQ(l.node, &folded->nodes[folded->by_name.at("sink")]);
  }
  EXPECT_NE(links[0].site_fn, nullptr);
  EXPECT_NE(links[1].site_fn, nullptr);
  EXPECT_EQ(links[2].site_fn, nullptr);  // 200-byte message: no site
  EXPECT_EQ(links[3].site_fn, nullptr);  // two alerts: no site
  auto plain = compile(graph, nullptr, false);
  for (const auto& outs : plain->links)
    for (const Link& l : outs) EXPECT_EQ(l.site_fn, nullptr);

  std::mt19937 rng(11);
  g_frames.clear();
  for (int i = 0; i < 400; ++i) g_frames.push_back(random_frame(rng, false));
  auto run = [](const CompiledGraph& g) {
    g_terminal.assign(g_frames.size(), -1);
    ++g_run;
    PacketPool pool(256);
    FullRecorder rec;
    Context ctx;
    ctx.pool = &pool;
    ctx.events = &rec;
    std::vector<uint8_t> done(g.sources.size(), 0);
    uint64_t round = 0;
    while (!std::all_of(done.begin(), done.end(), [](uint8_t d) { return d; })) {
      ctx.now_ns = 1000 + round++;
      run_round(g, ctx, done.data());
    }
    EXPECT_EQ(pool.capacity(), pool.available());
    return rec.events;
  };
  const std::vector<FullRecorder::Entry> a = run(*folded), b = run(*plain);
  EXPECT_EQ(a, b);
  std::map<std::string, size_t> per_origin;
  for (const auto& e : a) ++per_origin[std::get<1>(e)];
  size_t udp = 0, tcp = 0, ip = 0;
  for (const Bytes& f : g_frames) {
    if (f[12] != 0x08 || f[13] != 0x00) continue;
    ++ip;
    udp += f[23] == 17;
    tcp += f[23] == 6;
  }
  ASSERT_GT(udp, 0u);
  ASSERT_GT(tcp, 0u);
  ASSERT_GT(ip - udp - tcp, 0u);
  EXPECT_EQ(per_origin["udp"], udp);
  EXPECT_EQ(per_origin["tcp"], tcp);
  EXPECT_EQ(per_origin["long"], ip - udp - tcp);
  EXPECT_EQ(per_origin["two"], 2 * (g_frames.size() - ip));
  for (const auto& e : a) {
    const std::string& origin = std::get<1>(e);
    if (origin == "udp") {
      EXPECT_EQ(std::get<2>(e), "fw");
      EXPECT_EQ(std::get<3>(e), "udp seen");
      EXPECT_EQ(std::get<4>(e), 4);
      EXPECT_EQ(std::get<5>(e), 0);
    } else if (origin == "tcp") {
      EXPECT_EQ(std::get<3>(e), "tcp seen");
      EXPECT_EQ(std::get<4>(e), 2);
      EXPECT_EQ(std::get<5>(e), 20);
    } else if (origin == "long") {
      EXPECT_EQ(std::get<3>(e), long_message);
    }
  }
}
