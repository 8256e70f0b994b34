#include "engine/graph.hh"

#include <algorithm>
#include <atomic>
#include <exception>
#include <set>
#include <stdexcept>
#include <thread>

#include "catalogue/catalogue.hh"
#include "engine/fusion.hh"

namespace obi {
namespace {

using openbox::ErrorSubtype;
using openbox::ProtocolError;

[[noreturn]] void fail(ErrorSubtype s, const std::string& msg) { throw ProtocolError(s, msg); }

std::string block_label(const BlockSpec& b) { return "block '" + b.name + "' (" + b.type + ")"; }

// What a block's factory is given: its spec, and the match list the decoder read, if any.
ElementArgs element_args(const BlockSpec& b, unsigned workers) { return {b.name, b.type, b.config, workers, b.match}; }

void check_block_count(std::size_t blocks, const GraphLimits& limits) {
  if (blocks > limits.max_blocks)
    fail(ErrorSubtype::BAD_GRAPH, "the graph has " + std::to_string(blocks) + " blocks, over the cap of " +
                                      std::to_string(limits.max_blocks) + " (--max-blocks)");
}

// Applies the device map to a FromDevice / ToDevice block (see DeviceMap).
void bind_device(BlockSpec& b, const DeviceMap& devices) {
  const bool from = b.type == "FromDevice";
  if (!from && b.type != "ToDevice") return;
  auto dn = b.config.find("devname");
  if (dn == b.config.end() || !dn->is_string()) return;  // the catalogue check reports it
  auto it = devices.find(dn->get<std::string>() + (from ? "/rx" : "/tx"));
  if (it == devices.end()) it = devices.find(dn->get<std::string>());
  if (it == devices.end()) return;
  const std::string& target = it->second;
  b.given = {{"type", b.type}, {"config", b.config}};
  if (target.rfind("pcap:", 0) == 0) {
    b.type = from ? "FromDump" : "ToDump";
    b.config = nlohmann::json{{"filename", target.substr(5)}};
  } else {
    b.config["devname"] = target;
  }
}

BlockSpec parse_block(nlohmann::json& j, std::size_t index) {  // moves name, type and config out of j
  if (!j.is_object()) fail(ErrorSubtype::BAD_BLOCK, "blocks[" + std::to_string(index) + "]: a block must be an object");
  auto name = j.find("name");
  auto type = j.find("type");
  if (name == j.end() || !name->is_string() || name->get_ref<const std::string&>().empty())
    fail(ErrorSubtype::BAD_BLOCK, "blocks[" + std::to_string(index) + "]: missing or empty string field 'name'");
  if (type == j.end() || !type->is_string() || type->get_ref<const std::string&>().empty())
    fail(ErrorSubtype::BAD_BLOCK,
         "block '" + name->get_ref<const std::string&>() + "': missing or empty string field 'type'");
  BlockSpec b{std::move(name->get_ref<std::string&>()), std::move(type->get_ref<std::string&>()),
              nlohmann::json::object(), nlohmann::json(), false};
  auto cfg = j.find("config");
  b.has_config = cfg != j.end() && !cfg->is_null();
  if (b.has_config) {
    if (!cfg->is_object()) fail(ErrorSubtype::BAD_BLOCK, block_label(b) + ": 'config' must be an object");
    b.config = std::move(*cfg);
  }
  return b;
}

// The caps on one block's configuration (GraphLimits): rules of a classifier (its
// per-output config array) and payload patterns (HeaderPayloadClassifier's payload_match
// entries, the regular expressions of RegexClassifier / RegexMatcher); adds the block's
// pattern bytes to `pattern_bytes`.
void check_block_limits(const BlockSpec& b, const BlockDescriptor& d, const GraphLimits& limits,
                        std::size_t& pattern_bytes) {
  if (d.block_class == BlockClass::kClassifier && d.outputs.kind == PortSpec::Kind::kPer) {
    auto rules = b.config.find(d.outputs.arg);
    if (rules != b.config.end() && rules->is_array() && rules->size() > limits.max_rules)
      fail(ErrorSubtype::BAD_BLOCK, block_label(b) + ": " + std::to_string(rules->size()) + " rules in '" +
                                        d.outputs.arg + "', over the cap of " + std::to_string(limits.max_rules) +
                                        " (--max-rules)");
  }
  std::size_t patterns = 0;
  auto count = [&](const nlohmann::json& pattern) {
    if (!pattern.is_string()) return;
    ++patterns;
    pattern_bytes += pattern.get_ref<const std::string&>().size();
  };
  for (const ArgDescriptor& a : d.config) {
    auto v = b.config.find(a.name);
    if (v == b.config.end() || !v->is_array()) continue;
    if (a.type == "header_payload_match[]") {
      for (const auto& rule : *v) {
        if (!rule.is_object()) continue;
        auto pm = rule.find("payload_match");
        if (pm == rule.end() || !pm->is_array()) continue;
        for (const auto& p : *pm)
          if (p.is_object())
            if (auto it = p.find("pattern"); it != p.end()) count(*it);
      }
    } else if (a.name == "pattern" && (b.type == "RegexClassifier" || b.type == "RegexMatcher")) {
      for (const auto& p : *v) count(p);
    }
  }
  if (patterns > limits.max_patterns)
    fail(ErrorSubtype::BAD_PAYLOAD_MATCH, block_label(b) + ": " + std::to_string(patterns) +
                                              " payload patterns, over the cap of " +
                                              std::to_string(limits.max_patterns) + " (--max-patterns)");
  if (pattern_bytes > limits.max_pattern_bytes)
    fail(ErrorSubtype::BAD_PAYLOAD_MATCH, block_label(b) + ": the graph's payload patterns reach " +
                                              std::to_string(pattern_bytes) + " bytes here, over the cap of " +
                                              std::to_string(limits.max_pattern_bytes) + " bytes (--max-pattern-kib)");
}

long port_field(const nlohmann::json& c, const char* key, std::size_t index) {
  auto it = c.find(key);
  if (it == c.end()) return 0;  // ports default to 0
  if (!it->is_number_integer())
    fail(ErrorSubtype::BAD_CONNECTOR, "connectors[" + std::to_string(index) + "]: '" + key + "' must be an integer");
  return it->get<long>();
}

ConnectorSpec parse_connector(nlohmann::json& c, std::size_t index) {  // moves src and dst out of c
  auto where = [index] { return "connectors[" + std::to_string(index) + "]"; };
  if (!c.is_object()) fail(ErrorSubtype::BAD_CONNECTOR, where() + ": a connector must be an object");
  auto src = c.find("src");
  auto dst = c.find("dst");
  if (src == c.end() || !src->is_string()) fail(ErrorSubtype::BAD_CONNECTOR, where() + ": missing string field 'src'");
  if (dst == c.end() || !dst->is_string()) fail(ErrorSubtype::BAD_CONNECTOR, where() + ": missing string field 'dst'");
  return {std::move(src->get_ref<std::string&>()), port_field(c, "src_port", index),
          std::move(dst->get_ref<std::string&>()), port_field(c, "dst_port", index)};
}

// A block that passes every packet on unchanged to its one output (a static with one
// output: it neither changes, holds nor drops packets).
bool passes_on(const CompiledGraph& g, const Catalogue& cat, uint32_t k) {
  const BlockDescriptor* d = cat.find(g.specs[k].type);
  return d && d->block_class == BlockClass::kStatic && g.links[k].size() == 1;
}

// Where packets leaving on `l` are handled: the first block after the static blocks that
// pass them on, or nullptr.
const Node* past_statics(const CompiledGraph& g, const Catalogue& cat, const Link& l) {
  const Node* at = l.node;
  for (std::size_t steps = 0; at && steps <= g.nodes.size(); ++steps) {
    const uint32_t k = static_cast<uint32_t>(at - g.nodes.data());
    if (!passes_on(g, cat, k)) break;
    at = g.links[k][0].node;
  }
  return at;
}

// Tells every block with fusable lookups whether each path into it leaves a fusing block
// on an output fused for it (then every packet brings its results), once the plans are in.
void mark_fed_by_fusion(CompiledGraph& g, const Catalogue& cat) {
  const std::size_t n = g.specs.size();
  std::vector<int8_t> fed(n, -1);  // -1: no path in, 1: fused paths only, 0: another path
  for (std::size_t i = 0; i < n; ++i) {
    if (passes_on(g, cat, static_cast<uint32_t>(i))) continue;  // part of the paths from others
    HeaderFuser* fuser = g.elements[i]->header_fuser();
    const FusionPlan* plan = fuser && !fuser->fuse_names().empty() ? &fuser->fusion() : nullptr;
    for (std::size_t o = 0; o < g.links[i].size(); ++o) {
      const Node* at = past_statics(g, cat, g.links[i][o]);
      if (!at || !at->element->header_lookups()) continue;
      const uint32_t k = static_cast<uint32_t>(at - g.nodes.data());
      const int32_t t = plan && o < plan->leads.size() ? plan->leads[o] : -1;
      const bool fused = t >= 0 && plan->targets[t].element == at->element;
      fed[k] = static_cast<int8_t>(fed[k] != 0 && fused);
    }
  }
  for (std::size_t k = 0; k < n; ++k)
    if (HeaderLookups* l = g.elements[k]->header_lookups()) l->set_fed_by_fusion(fed[k] == 1);
}

// Fusion (engine/fusion.hh): resolves the `fuse` names of every HeaderFuser, finds which
// of its outputs lead to each target through static blocks only, and installs the plan.
// A carried fuser whose plan changed (a target rebuilt, rewired or gone) is rebuilt: it
// is shared with the running graph, so its lookup must not change under the workers.
void plan_fusion(CompiledGraph& g, const Catalogue& cat, unsigned workers) {
  const std::size_t n = g.specs.size();
  for (std::size_t i = 0; i < n; ++i) {
    HeaderFuser* fuser = g.elements[i]->header_fuser();
    if (!fuser || fuser->fuse_names().empty()) continue;
    const BlockSpec& b = g.specs[i];
    const std::string where = block_label(b) + ", config 'fuse'";
    FusionPlan plan;
    std::vector<uint32_t> target_node;
    for (const std::string& name : fuser->fuse_names()) {
      auto it = g.by_name.find(name);
      if (it == g.by_name.end()) fail(ErrorSubtype::BAD_BLOCK, where + ": no block named '" + name + "'");
      if (it->second == i) fail(ErrorSubtype::BAD_BLOCK, where + ": a block cannot fuse itself");
      Element& t = *g.elements[it->second];
      const HeaderLookups* lookups = t.header_lookups();
      if (!lookups)
        fail(ErrorSubtype::BAD_BLOCK, where + ": block '" + name + "' is a " + g.specs[it->second].type +
                                          ", not a classifier whose header lookups can be fused "
                                          "(HeaderClassifier or HeaderPayloadClassifier)");
      plan.targets.push_back({name, &t, lookups});
      target_node.push_back(it->second);
    }
    const std::size_t outs = g.links[i].size();
    plan.leads.assign(outs, -1);
    for (std::size_t o = 0; o < outs; ++o) {
      const Node* at = past_statics(g, cat, g.links[i][o]);
      if (!at) continue;
      const uint32_t k = static_cast<uint32_t>(at - g.nodes.data());
      for (std::size_t t = 0; t < target_node.size(); ++t)
        if (target_node[t] == k) plan.leads[o] = static_cast<int32_t>(t);
    }
    if (g.carried[i] && fuser->fusion().same_as(plan)) continue;
    if (g.carried[i]) {
      std::shared_ptr<Element> e = find_element(b.type)(element_args(b, workers));
      e->set_identity(b.name, b.type);
      g.elements[i] = std::move(e);
      g.nodes[i].element = g.elements[i].get();
      g.carried[i] = false;
      fuser = g.elements[i]->header_fuser();
    }
    fuser->fuse(plan);
  }
}

// Folds pass-through statics into the links that lead to them (see Link): a link to a
// chain of such blocks becomes a link to what follows the chain, carrying the chain. Runs
// on the finished (acyclic) wiring; the statics keep their own nodes and links, which no
// packet takes any more.
void fold_statics(CompiledGraph& g) {
  const std::size_t n = g.nodes.size();
  // The links as wired: read here, rewritten only below, once every span is known.
  const std::vector<std::vector<Link>>& wired = g.links;
  auto index = [&g](const Node* node) { return static_cast<std::size_t>(node - g.nodes.data()); };
  struct Span {
    std::size_t node, output, begin, count;
    Link to;
  };
  std::vector<Span> spans;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t o = 0; o < wired[i].size(); ++o) {
      Link to = wired[i][o];
      const std::size_t begin = g.folded.size();
      while (to.node && to.node->element->passes_through() && wired[index(to.node)].size() == 1 &&
             g.folded.size() - begin < 0xffff) {
        g.folded.push_back(to.node->element);
        to = wired[index(to.node)][0];
      }
      if (g.folded.size() > begin) spans.push_back({i, o, begin, g.folded.size() - begin, to});
    }
  }
  for (const Span& sp : spans) {  // pointers into `folded` only once it has stopped growing
    Link& l = g.links[sp.node][sp.output];
    l.node = sp.to.node;
    l.port = sp.to.port;
    l.inlined = static_cast<uint16_t>(sp.count);
    l.statics = g.folded.data() + sp.begin;
    l.site_fn = sp.count == 1 ? l.statics[0]->static_site(l.site, Link::kSiteBytes) : nullptr;
  }
}

}  // namespace

nlohmann::json CompiledGraph::to_json() const {
  nlohmann::json blocks = nlohmann::json::array();
  for (const BlockSpec& b : specs) {
    const bool bound = !b.given.is_null();
    nlohmann::json j = {{"type", bound ? b.given["type"] : nlohmann::json(b.type)}, {"name", b.name}};
    const nlohmann::json& config = bound ? b.given["config"] : b.config;
    if (b.has_config) j["config"] = config;
    blocks.push_back(std::move(j));
  }
  nlohmann::json wires = nlohmann::json::array();
  for (const ConnectorSpec& c : connectors)
    wires.push_back({{"src", c.src}, {"src_port", c.src_port}, {"dst", c.dst}, {"dst_port", c.dst_port}});
  return {{"blocks", std::move(blocks)}, {"connectors", std::move(wires)}};
}

std::string ConnectorSpec::label() const {
  return "connector " + src + "[" + std::to_string(src_port) + "] -> " + dst + "[" + std::to_string(dst_port) + "]";
}

GraphSpec graph_of(openbox::SetProcessingGraphRequest& r) {
  GraphSpec g;
  g.blocks.reserve(r.blocks.size());
  for (openbox::Block& b : r.blocks) {
    const bool has_config = b.config.has_value();
    g.blocks.push_back({std::move(b.name), std::move(b.type),
                        has_config ? std::move(*b.config) : nlohmann::json::object(), nlohmann::json(), has_config,
                        std::move(b.match)});
  }
  g.connectors.reserve(r.connectors.size());
  for (openbox::Connector& c : r.connectors)  // ports below 2^31 (the codec's check)
    g.connectors.push_back(
        {std::move(c.src), static_cast<long>(c.src_port), std::move(c.dst), static_cast<long>(c.dst_port)});
  r.blocks.clear();
  r.connectors.clear();
  return g;
}

GraphSpec graph_spec(nlohmann::json graph, const GraphLimits& limits) {
  if (!graph.is_object())
    fail(ErrorSubtype::BAD_GRAPH, "the graph must be a JSON object with 'blocks' and 'connectors'");
  auto blocks = graph.find("blocks");
  if (blocks == graph.end() || !blocks->is_array()) fail(ErrorSubtype::BAD_GRAPH, "the graph needs a 'blocks' array");
  auto connectors = graph.find("connectors");
  if (connectors != graph.end() && !connectors->is_array() && !connectors->is_null())
    fail(ErrorSubtype::BAD_GRAPH, "'connectors' must be an array");
  check_block_count(blocks->size(), limits);
  GraphSpec g;
  g.blocks.reserve(blocks->size());
  for (std::size_t i = 0; i < blocks->size(); ++i) g.blocks.push_back(parse_block((*blocks)[i], i));
  if (connectors != graph.end() && connectors->is_array()) {
    g.connectors.reserve(connectors->size());
    for (std::size_t i = 0; i < connectors->size(); ++i) g.connectors.push_back(parse_connector((*connectors)[i], i));
  }
  return g;
}

std::unique_ptr<CompiledGraph> compile_graph(nlohmann::json graph, const CompileOptions& opt) {
  return compile_graph(graph_spec(std::move(graph), opt.limits), opt);
}

std::unique_ptr<CompiledGraph> compile_graph(GraphSpec graph, const CompileOptions& opt) {
  check_block_count(graph.blocks.size(), opt.limits);
  auto g = std::make_unique<CompiledGraph>();
  const Catalogue& cat = Catalogue::builtin();

  // Blocks: shape, names, types, configs.
  g->specs.reserve(graph.blocks.size());
  g->by_name.reserve(graph.blocks.size());
  for (BlockSpec& b : graph.blocks) {
    if (opt.devices) bind_device(b, *opt.devices);
    if (!g->by_name.emplace(b.name, static_cast<uint32_t>(g->specs.size())).second)
      fail(ErrorSubtype::BAD_BLOCK, "duplicate block name '" + b.name + "'");
    g->specs.push_back(std::move(b));
  }
  std::size_t pattern_bytes = 0;
  for (const BlockSpec& b : g->specs) {
    const BlockDescriptor* d = cat.find(b.type);
    if (!d) fail(ErrorSubtype::UNSUPPORTED_BLOCK, block_label(b) + ": unknown block type '" + b.type + "'");
    if (!find_element(b.type))
      fail(ErrorSubtype::UNSUPPORTED_BLOCK,
           block_label(b) + ": block type '" + b.type + "' is not implemented by this OBI");
    cat.check_config(*d, b.name, b.config);
    check_block_limits(b, *d, opt.limits, pattern_bytes);
  }

  // Elements: carried over when unchanged, otherwise built by the factory.
  std::vector<std::shared_ptr<Element>> carry(g->specs.size());
  if (opt.previous) {
    for (std::size_t i = 0; i < g->specs.size(); ++i) {
      const BlockSpec& b = g->specs[i];
      auto it = opt.previous->by_name.find(b.name);
      if (it == opt.previous->by_name.end()) continue;
      const BlockSpec& old = opt.previous->specs[it->second];
      if (old.type == b.type && old.config == b.config) carry[i] = opt.previous->elements[it->second];
    }
  }
  auto build = [&opt, &g](std::size_t i) {
    const BlockSpec& b = g->specs[i];
    std::shared_ptr<Element> e;
    try {
      e = find_element(b.type)(element_args(b, opt.workers));
    } catch (const ProtocolError&) {
      throw;
    } catch (const std::exception& ex) {
      fail(ErrorSubtype::BAD_BLOCK, block_label(b) + ": " + ex.what());
    }
    if (!e) fail(ErrorSubtype::INTERNAL_ERROR, block_label(b) + ": factory returned no element");
    return e;
  };
  // Classifiers that are not carried over (their rule tables are the costly builds) are
  // built first, on opt.build_threads threads when there are several; a failure is
  // reported when the loop below reaches the block, as if it had been built there.
  struct Prebuilt {
    std::shared_ptr<Element> element;
    std::exception_ptr error;
  };
  std::vector<Prebuilt> prebuilt(g->specs.size());
  {
    std::vector<std::size_t> heavy;
    for (std::size_t i = 0; i < g->specs.size(); ++i) {
      if (!carry[i] && cat.find(g->specs[i].type)->block_class == BlockClass::kClassifier) heavy.push_back(i);
    }
    const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(opt.build_threads, heavy.size()));
    if (threads >= 2) {
      std::atomic<std::size_t> next{0};
      auto run = [&] {
        for (std::size_t k; (k = next.fetch_add(1)) < heavy.size();) {
          if (opt.cancelled && opt.cancelled()) return;  // the loop below reports it
          Prebuilt& p = prebuilt[heavy[k]];
          try {
            p.element = build(heavy[k]);
          } catch (...) {
            p.error = std::current_exception();
          }
        }
      };
      std::vector<std::thread> helpers;
      for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(run);
      run();
      for (std::thread& t : helpers) t.join();
    }
  }
  for (std::size_t i = 0; i < g->specs.size(); ++i) {
    const BlockSpec& b = g->specs[i];
    if (opt.cancelled && opt.cancelled())
      fail(ErrorSubtype::BAD_GRAPH, "compiling the graph was abandoned at block '" + b.name + "'");
    std::shared_ptr<Element> e = std::move(carry[i]);
    const bool carried = e != nullptr;
    if (!e && opt.replace_source) {
      // A block with no inputs is a source: offer it for replacement before the factory
      // runs, so obi bench does not open the graph's files or devices.
      const BlockDescriptor* d = cat.find(b.type);
      if (d->inputs.kind == PortSpec::Kind::kFixed && d->inputs.count == 0) {
        if (auto r = opt.replace_source(b)) {
          e = std::move(r);
          e->set_identity(b.name, b.type);
        }
      }
    }
    if (!e) {
      if (prebuilt[i].error) std::rethrow_exception(prebuilt[i].error);
      e = prebuilt[i].element ? std::move(prebuilt[i].element) : build(i);
      e->set_identity(b.name, b.type);
      if (Element* old = opt.previous ? opt.previous->find(b.name) : nullptr; old && old->type() == b.type)
        e->take_over(*old);
    }
    g->elements.push_back(std::move(e));
    g->carried.push_back(carried);
  }

  // Connectors.
  const std::size_t n = g->specs.size();
  g->links.resize(n);
  for (std::size_t i = 0; i < n; ++i) g->links[i].resize(g->elements[i]->output_count());
  g->nodes.resize(n);
  std::vector<std::vector<uint32_t>> succ(n);
  for (const ConnectorSpec& c : graph.connectors) {
    auto s = g->by_name.find(c.src);
    auto d = g->by_name.find(c.dst);
    if (s == g->by_name.end()) fail(ErrorSubtype::BAD_CONNECTOR, c.label() + ": no block named '" + c.src + "'");
    if (d == g->by_name.end()) fail(ErrorSubtype::BAD_CONNECTOR, c.label() + ": no block named '" + c.dst + "'");
    const Element& se = *g->elements[s->second];
    const Element& de = *g->elements[d->second];
    if (c.src_port < 0 || c.src_port >= se.output_count())
      fail(ErrorSubtype::BAD_CONNECTOR,
           c.label() + ": block '" + c.src + "' has " + std::to_string(se.output_count()) + " output port(s)");
    if (c.dst_port < 0 || c.dst_port >= de.input_count())
      fail(ErrorSubtype::BAD_CONNECTOR,
           c.label() + ": block '" + c.dst + "' has " + std::to_string(de.input_count()) + " input port(s)");
    Link& l = g->links[s->second][c.src_port];
    if (l.node != nullptr)
      fail(ErrorSubtype::BAD_CONNECTOR,
           c.label() + ": output " + std::to_string(c.src_port) + " of '" + c.src + "' is already connected");
    l.node = &g->nodes[d->second];
    l.port = static_cast<uint16_t>(c.dst_port);
    succ[s->second].push_back(d->second);
  }
  g->connectors = std::move(graph.connectors);
  for (std::size_t i = 0; i < n; ++i) {
    g->nodes[i].element = g->elements[i].get();
    g->nodes[i].outputs.links = g->links[i].data();
    g->nodes[i].outputs.count = static_cast<uint16_t>(g->links[i].size());
    if (g->elements[i]->is_source()) g->sources.push_back(static_cast<uint32_t>(i));
    if (g->elements[i]->has_task()) g->tasks.push_back(static_cast<uint32_t>(i));
  }
  if (g->sources.empty()) fail(ErrorSubtype::BAD_GRAPH, "the graph has no source block (FromDevice or FromDump)");

  // Cycle check (iterative DFS, colours: 0 new, 1 on stack, 2 done): a batch pushed round
  // a cycle would never leave the graph.
  std::vector<uint8_t> colour(n, 0);
  for (std::size_t root = 0; root < n; ++root) {
    if (colour[root]) continue;
    std::vector<std::pair<uint32_t, std::size_t>> stack{{static_cast<uint32_t>(root), 0}};
    colour[root] = 1;
    while (!stack.empty()) {
      auto& [v, k] = stack.back();
      if (k < succ[v].size()) {
        uint32_t w = succ[v][k++];
        if (colour[w] == 1)
          fail(ErrorSubtype::BAD_GRAPH,
               "the graph has a cycle through block '" + g->specs[w].name + "' (from '" + g->specs[v].name + "')");
        if (colour[w] == 0) {
          colour[w] = 1;
          stack.push_back({w, 0});
        }
      } else {
        colour[v] = 2;
        g->order.push_back(v);  // post-order; reversed below
        stack.pop_back();
      }
    }
  }
  std::reverse(g->order.begin(), g->order.end());

  // Depth: blocks on the longest path (the order is topological).
  std::vector<uint32_t> depth(n, 1);
  uint32_t deepest = n ? 1 : 0;
  for (uint32_t v : g->order)
    for (uint32_t w : succ[v]) {
      depth[w] = std::max(depth[w], depth[v] + 1);
      deepest = std::max(deepest, depth[w]);
    }
  if (deepest > opt.limits.max_depth)
    fail(ErrorSubtype::BAD_GRAPH, "the graph has a longest path of " + std::to_string(deepest) +
                                      " blocks, over the cap of " + std::to_string(opt.limits.max_depth) +
                                      " (--max-depth)");
  plan_fusion(*g, cat, opt.workers);
  mark_fed_by_fusion(*g, cat);
  if (opt.fold_statics) fold_statics(*g);
  return g;
}

DeviceMap parse_device_map(const std::string& text) {
  DeviceMap m;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    std::size_t eq = item.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == item.size())
      throw std::invalid_argument("device binding '" + item + "' is not NAME=TARGET");
    if (!m.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
      throw std::invalid_argument("device '" + item.substr(0, eq) + "' is bound twice");
    start = end + 1;
  }
  return m;
}

}  // namespace obi
