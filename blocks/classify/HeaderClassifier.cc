#include "HeaderClassifier.hh"

#include "lib/block_spec.hh"

#include "lib/config.hh"
#include "lib/match_config.hh"
#include "lib/split.hh"

namespace obi::blocks {

namespace {

openbox::SharedHeaderMatches parse_rules(const ElementArgs& args) {
  ConfigReader c(args);
  const nlohmann::json& list = c.array("match");
  if (list.size() >= kDropOutput) c.where("match").expected("at most 65534 rules", nlohmann::json(list.size()));
  if (args.match && args.match->size() == list.size()) return args.match;  // read by the protocol decoder
  std::vector<openbox::HeaderMatch> rules;
  rules.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) rules.push_back(parse_rule(list[i], c.where("match").at(i)));
  return std::make_shared<const std::vector<openbox::HeaderMatch>>(std::move(rules));
}

std::vector<std::string> parse_fuse(const ElementArgs& args) {
  ConfigReader c(args);
  std::vector<std::string> names = c.strings("fuse", false);
  if (names.size() > MultiClassifier::kMaxSets - 1)
    c.where("fuse").expected("at most " + std::to_string(MultiClassifier::kMaxSets - 1) + " block names",
                             c.get("fuse"));
  for (size_t i = 0; i < names.size(); ++i) {
    const Where w = c.where("fuse").at(i);
    if (names[i].empty()) w.expected("a block name", names[i]);
    if (names[i] == args.name) w.expected("another block's name (a block cannot fuse itself)", names[i]);
    for (size_t j = 0; j < i; ++j)
      if (names[j] == names[i]) w.expected("a name not listed before (a target fused twice)", names[i]);
  }
  return names;
}

}  // namespace

HeaderClassifierElement::HeaderClassifierElement(const ElementArgs& args)
    : mc_(args.workers),
      rules_(parse_rules(args)),
      fuse_names_(parse_fuse(args)),
      slot_of_output_(rules_->size(), -1),
      stats_(static_cast<uint32_t>(rules_->size()), args.workers),
      no_match_(args.workers ? args.workers : 1) {
  if (fuse_names_.empty()) mc_.compile({rules_}, MultiClassifier::Build::kOnStart);
}

void HeaderClassifierElement::activate() {
  active_ = true;
  if (!fed_by_fusion_) mc_.start_build();
}

void HeaderClassifierElement::set_fed_by_fusion(bool all) {
  // a block that fuses others looks up for them, whatever its packets bring
  const bool fed = all && slots_.empty();
  if (!active_) {
    fed_by_fusion_ = fed;
    return;
  }
  // Carried from the running graph, which keeps it if the new graph is refused: it only
  // ever starts its build (the new graph also reaches it otherwise), never gives one up.
  if (!fed) {
    fed_by_fusion_ = false;
    mc_.start_build();
  }
}

std::vector<openbox::SharedHeaderMatches> HeaderClassifierElement::header_sets() const { return {rules_}; }

void HeaderClassifierElement::fuse(const FusionPlan& plan) {
  std::vector<openbox::SharedHeaderMatches> sets = header_sets();
  std::vector<Slot> slots;
  std::vector<int32_t> slot_of_target(plan.targets.size(), -1);
  std::vector<int32_t> slot_of_output(rules_->size(), -1);
  for (uint32_t o = 0; o < rules_->size() && o < plan.leads.size(); ++o) {
    const int32_t t = plan.leads[o];
    if (t < 0) continue;
    if (slot_of_target[t] < 0) {
      // Only targets some output leads to cost lookup sets.
      std::vector<openbox::SharedHeaderMatches> ts = plan.targets[t].lookups->header_sets();
      if (ts.size() > Precomputed::kSets)
        Where{openbox::ErrorSubtype::BAD_BLOCK, block_label(name(), type()), "fuse"}.fail(
            "expected blocks of at most " + std::to_string(Precomputed::kSets) + " rule sets, block '" +
            plan.targets[t].name + "' needs " + std::to_string(ts.size()));
      if (sets.size() + ts.size() > MultiClassifier::kMaxSets)
        Where{openbox::ErrorSubtype::BAD_BLOCK, block_label(name(), type()), "fuse"}.fail(
            "expected targets of at most " + std::to_string(MultiClassifier::kMaxSets - 1) +
            " rule sets in one lookup, they need more");
      slot_of_target[t] = static_cast<int32_t>(slots.size());
      slots.push_back({plan.targets[t].element, static_cast<unsigned>(sets.size()), static_cast<unsigned>(ts.size())});
      for (auto& s : ts) sets.push_back(std::move(s));
    }
    slot_of_output[o] = slot_of_target[t];
  }
  mc_.compile(std::move(sets), MultiClassifier::Build::kOnStart);
  slots_ = std::move(slots);
  slot_of_output_ = std::move(slot_of_output);
  plan_ = plan;
}

void HeaderClassifierElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  const uint32_t n = batch.n;
  const unsigned sets = mc_.set_count();
  int32_t res[kBatchSize * MultiClassifier::kMaxSets];
  uint16_t outs[kBatchSize];
  if (slots_.empty()) {
    // Packets tagged by a classifier upstream bring this block's result; look up the others.
    uint32_t todo[kBatchSize];
    const uint32_t m = take_precomputed(batch.pkts, n, self(), 1, res, todo);
    if (m == n) {
      mc_.classify_batch(batch.pkts, n, res, ctx.worker);
    } else if (m) {
      Packet* rest[kBatchSize];
      int32_t r[kBatchSize];
      for (uint32_t j = 0; j < m; ++j) rest[j] = batch.pkts[todo[j]];
      mc_.classify_batch(rest, m, r, ctx.worker);
      for (uint32_t j = 0; j < m; ++j) res[todo[j]] = r[j];
    }
    for (uint32_t i = 0; i < n; ++i) outs[i] = res[i] < 0 ? kDropOutput : static_cast<uint16_t>(res[i]);
  } else {
    // One lookup for this block (set 0) and the fused targets; each packet carries the
    // results of the target its output leads to. A tag for this block itself (it is also
    // some block's target) is superseded by the full lookup.
    for (uint32_t i = 0; i < n; ++i)
      if (batch.pkts[i]->pre.block == self()) batch.pkts[i]->pre.block = nullptr;
    mc_.classify_batch(batch.pkts, n, res, ctx.worker);
    for (uint32_t i = 0; i < n; ++i) {
      const int32_t* r = res + i * sets;
      if (r[0] < 0) {
        outs[i] = kDropOutput;
        continue;
      }
      outs[i] = static_cast<uint16_t>(r[0]);
      const int32_t s = slot_of_output_[r[0]];
      if (s < 0) continue;
      const Slot& slot = slots_[s];
      Packet* p = batch.pkts[i];
      p->pre.block = slot.block;
      for (unsigned k = 0; k < slot.sets; ++k) p->pre.rule[k] = r[slot.base + k];
    }
  }
  stats_.prefetch(ctx.worker, outs, n);
  prefetch_outputs(outs, n, out);
  emit_by_output(batch, outs, ctx, out, [&](uint16_t o, uint32_t packets, uint64_t bytes) {
    if (o == kDropOutput) no_match_[ctx.worker].add(packets);
    else stats_.add(ctx.worker, o, packets, bytes, ctx.now_ns);
  });
}

nlohmann::json HeaderClassifierElement::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  if (handle == "no_match") {
    uint64_t s = 0;
    no_match_.for_each([&](const Counter& c) { s += c.get(); });
    return s;
  }
  if (handle == "engine") return fed_by_fusion_ ? "fused" : mc_.engine();
  if (handle == "flow_cache") {
    const MultiClassifier::CacheStats c = mc_.cache_stats();
    return {{"entries", c.entries}, {"hits", c.hits}, {"misses", c.misses}, {"bypassed", c.bypassed}};
  }
  if (handle == "fused") {
    nlohmann::json sets = nlohmann::json::array(), targets = nlohmann::json::array();
    for (unsigned k = 0; k < mc_.set_count(); ++k) sets.push_back(mc_.rule_count(k));
    for (size_t t = 0; t < plan_.targets.size(); ++t) {
      nlohmann::json outs = nlohmann::json::array(), tsets = nlohmann::json::array();
      int32_t slot = -1;
      for (uint32_t o = 0; o < rules_->size(); ++o)
        if (o < plan_.leads.size() && plan_.leads[o] == static_cast<int32_t>(t)) {
          outs.push_back(o);
          slot = slot_of_output_[o];
        }
      if (slot >= 0)
        for (unsigned k = 0; k < slots_[slot].sets; ++k) tsets.push_back(mc_.rule_count(slots_[slot].base + k));
      targets.push_back({{"name", plan_.targets[t].name}, {"outputs", outs}, {"sets", tsets}});
    }
    return {{"sets", sets}, {"targets", targets}};
  }
  return Element::read(handle);
}

void HeaderClassifierElement::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  Element::write(handle, value);
}

std::string HeaderClassifierElement::settle(std::chrono::milliseconds timeout) const {
  if (fed_by_fusion_) return "fused";
  mc_.wait_ready(timeout);
  return mc_.engine();
}

OBI_REGISTER_BLOCK(HeaderClassifier, HeaderClassifierElement);

}  // namespace obi::blocks
