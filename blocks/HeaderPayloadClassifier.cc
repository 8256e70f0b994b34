#include "HeaderPayloadClassifier.hh"

#include <algorithm>
#include <map>
#include <tuple>

#include "common/config.hh"
#include "common/match_config.hh"
#include "common/scan_region.hh"
#include "common/split.hh"

namespace obi::blocks {

using openbox::ErrorSubtype;

HeaderPayloadClassifierElement::HeaderPayloadClassifierElement(const ElementArgs& args)
    : stats_(1, 1), scratch_(args.workers ? args.workers : 1) {
  ConfigReader c(args);
  const nlohmann::json& list = c.array("match");
  if (list.size() >= kDropOutput) c.fail("match", "too many rules (at most 65534)");
  payload_only_ = c.boolean("payload_only", true);

  std::vector<std::string> exprs, labels;
  std::vector<unsigned> flags;
  std::map<std::tuple<std::string, unsigned, uint64_t, uint64_t>, uint32_t> dedup;
  std::vector<openbox::HeaderMatch> plain, gated;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = c.where("match") + " rule " + std::to_string(i);
    const nlohmann::json& m = list[i];
    if (!m.is_object()) c.fail("match", "rule " + std::to_string(i) + " is not an object");
    Rule rule;
    auto hm = m.find("header_match");
    rule.header = parse_rule(hm == m.end() || hm->is_null() ? nlohmann::json::object() : *hm, where + " header_match");
    auto pm = m.find("payload_match");
    if (pm != m.end() && !pm->is_null()) {
      if (!pm->is_array())
        throw openbox::ProtocolError(ErrorSubtype::BAD_PAYLOAD_MATCH, where + " payload_match: must be an array");
      for (size_t j = 0; j < pm->size(); ++j) {
        const nlohmann::json& pp = (*pm)[j];
        const std::string pwhere = where + " payload_match " + std::to_string(j);
        auto bad = [&](const std::string& why) {
          throw openbox::ProtocolError(ErrorSubtype::BAD_PAYLOAD_MATCH, pwhere + ": " + why);
        };
        if (!pp.is_object() || !pp.contains("pattern") || !pp["pattern"].is_string()) bad("needs a string 'pattern'");
        bool is_regex = true;
        if (pp.contains("is_regex") && !pp["is_regex"].is_null()) {
          if (!pp["is_regex"].is_boolean()) bad("'is_regex' must be a boolean");
          is_regex = pp["is_regex"].get<bool>();
        }
        Pattern p;
        for (const char* k : {"from", "to"}) {
          if (!pp.contains(k) || pp[k].is_null()) continue;
          if (!pp[k].is_number_integer() || pp[k].get<int64_t>() < 0) bad(std::string("'") + k + "' must be a non-negative integer");
          (std::string(k) == "from" ? p.from : p.to) = pp[k].get<uint64_t>();
          p.bounded = true;
        }
        if (p.from > p.to) bad("'from' is greater than 'to'");
        std::string text = pp["pattern"].get<std::string>();
        std::string expr = is_regex ? text : HsDatabase::escape_literal(text);
        // bounded start offsets need the start of match, which single-match mode lacks
        unsigned fl = p.bounded ? (HS_FLAG_ALLOWEMPTY | HS_FLAG_SOM_LEFTMOST) : kHsDefaultFlags;
        auto key = std::make_tuple(expr, fl, p.from, p.to);
        auto [it, fresh] = dedup.try_emplace(key, static_cast<uint32_t>(exprs.size()));
        if (fresh) {
          exprs.push_back(expr);
          flags.push_back(fl);
          labels.push_back("rule " + std::to_string(i) + " payload_match " + std::to_string(j));
          patterns_.push_back(p);
          rules_of_pattern_.emplace_back();
        }
        if (std::find(rule.patterns.begin(), rule.patterns.end(), it->second) == rule.patterns.end()) {
          rule.patterns.push_back(it->second);
          rules_of_pattern_[it->second].push_back(static_cast<uint32_t>(i));
        }
      }
    }
    if (rule.patterns.empty()) { plain.push_back(rule.header); plain_index_.push_back(static_cast<uint32_t>(i)); }
    else gated.push_back(rule.header);
    rules_.push_back(std::move(rule));
  }
  db_ = std::make_unique<HsDatabase>(exprs, flags, args.workers, "block '" + args.name + "' (" + args.type + ")", labels);
  plain_.compile(std::move(plain));
  payload_gate_.compile(std::move(gated));
  stats_ = OutputStats(static_cast<uint32_t>(rules_.size()), args.workers);
  for (unsigned w = 0; w < scratch_.size(); ++w) {
    Scratch& s = scratch_[w];
    s.pattern_gen.assign(patterns_.size(), 0);
    s.rule_gen.assign(rules_.size(), 0);
    s.rule_hits.assign(rules_.size(), 0);
    s.matched.reserve(patterns_.size());
    s.candidates.reserve(rules_.size());
  }
}

int32_t HeaderPayloadClassifierElement::classify(Packet& p, Scratch& s, unsigned worker) const {
  int32_t plain_rule = plain_.classify(p);
  int32_t best = plain_rule < 0 ? INT32_MAX : static_cast<int32_t>(plain_index_[plain_rule]);
  if (patterns_.empty() || payload_gate_.classify(p) < 0) return best == INT32_MAX ? -1 : best;

  if (++s.gen == 0) {   // wrapped: clear the stamps once every 2^32 packets
    std::fill(s.pattern_gen.begin(), s.pattern_gen.end(), 0);
    std::fill(s.rule_gen.begin(), s.rule_gen.end(), 0);
    s.gen = 1;
  }
  const uint32_t gen = s.gen;
  s.matched.clear();
  ScanRegion r = scan_region(p, payload_only_);
  db_->scan(worker, r.data, r.len, [&](unsigned id, uint64_t from, uint64_t) {
    if (s.pattern_gen[id] == gen) return false;
    const Pattern& pat = patterns_[id];
    if (pat.bounded && (from < pat.from || from > pat.to)) return false;
    s.pattern_gen[id] = gen;
    s.matched.push_back(id);
    return false;
  });
  if (s.matched.empty()) return best == INT32_MAX ? -1 : best;

  s.candidates.clear();
  for (uint32_t id : s.matched)
    for (uint32_t rule : rules_of_pattern_[id]) {
      if (static_cast<int32_t>(rule) >= best) continue;
      if (s.rule_gen[rule] != gen) { s.rule_gen[rule] = gen; s.rule_hits[rule] = 0; }
      if (++s.rule_hits[rule] == rules_[rule].patterns.size()) s.candidates.push_back(rule);
    }
  std::sort(s.candidates.begin(), s.candidates.end());
  for (uint32_t rule : s.candidates) {
    if (static_cast<int32_t>(rule) >= best) break;
    if (header_matches(p, rules_[rule].header)) { best = static_cast<int32_t>(rule); break; }
  }
  return best == INT32_MAX ? -1 : best;
}

void HeaderPayloadClassifierElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  Scratch& s = scratch_[ctx.worker];
  uint16_t outs[kBatchSize];
  for (uint32_t i = 0; i < batch.n; ++i) {
    int32_t r = classify(*batch.pkts[i], s, ctx.worker);
    outs[i] = r < 0 ? kDropOutput : static_cast<uint16_t>(r);
  }
  emit_by_output(batch, outs, ctx, out, [&](uint16_t o, const Batch& b) {
    if (o != kDropOutput) stats_.add(ctx.worker, o, b.n, b.bytes(), ctx.now_ns);
  });
}

nlohmann::json HeaderPayloadClassifierElement::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  return Element::read(handle);
}

void HeaderPayloadClassifierElement::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  Element::write(handle, value);
}

OBI_REGISTER_ELEMENT(HeaderPayloadClassifier, HeaderPayloadClassifierElement);

}  // namespace obi::blocks
