#include "HeaderPayloadClassifier.hh"

#include "lib/block_spec.hh"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <tuple>

#include "lib/config.hh"
#include "lib/match_config.hh"
#include "lib/scan_region.hh"
#include "lib/split.hh"

namespace obi::blocks {

using openbox::ErrorSubtype;

namespace {

constexpr int kSelectiveLiteral = 4;

// Number of bytes a pure-literal expression matches ("abc", "a\x2fb", "(?i:a\.b)"),
// or -1 when the expression has any regex operator.
int literal_length(const std::string& e) {
  std::string_view s = e;
  if (s.size() >= 5 && s.substr(0, 4) == "(?i:" && s.back() == ')') s = s.substr(4, s.size() - 5);
  int n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\\') {
      if (i + 1 >= s.size()) return -1;
      char d = s[i + 1];
      if (d == 'x') {
        if (i + 3 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 2])) ||
            !std::isxdigit(static_cast<unsigned char>(s[i + 3])))
          return -1;
        i += 3;
      } else if (std::isalnum(static_cast<unsigned char>(d))) {
        return -1;  // \d, \w, \b, ...: classes and assertions
      } else {
        i += 1;  // an escaped punctuation character
      }
    } else if (std::strchr(".[](){}*+?|^$", c)) {
      return -1;
    }
    ++n;
  }
  return n;
}

}  // namespace

HeaderPayloadClassifierElement::HeaderPayloadClassifierElement(const ElementArgs& args)
    : stats_(1, 1), scratch_(args.workers ? args.workers : 1) {
  ConfigReader c(args);
  const nlohmann::json& list = c.array("match");
  if (list.size() >= kDropOutput) c.where("match").expected("at most 65534 rules", nlohmann::json(list.size()));
  payload_only_ = c.boolean("payload_only", true);
  const bool prefilter = c.boolean("prefilter", true);

  struct Source {
    std::string expr, label;
    unsigned flags;
    int literal;
  };
  std::vector<Source> sources;  // per pattern id
  std::map<std::tuple<std::string, unsigned, uint64_t, uint64_t>, uint32_t> dedup;
  std::vector<std::vector<uint32_t>> rule_patterns;
  std::vector<openbox::HeaderMatch> plain, gated;

  for (size_t i = 0; i < list.size(); ++i) {
    const Where where = c.where("match").at(i);
    const nlohmann::json& m = list[i];
    if (!m.is_object()) where.expected("an object with header_match and payload_match", m);
    Rule rule;
    auto hm = m.find("header_match");
    rule.header =
        parse_rule(hm == m.end() || hm->is_null() ? nlohmann::json::object() : *hm, where.key("header_match"));
    std::vector<uint32_t> ids;
    auto pm = m.find("payload_match");
    if (pm != m.end() && !pm->is_null()) {
      Where pw = where.key("payload_match");
      pw.subtype = ErrorSubtype::BAD_PAYLOAD_MATCH;
      if (!pm->is_array()) pw.expected("an array of payload patterns", *pm);
      for (size_t j = 0; j < pm->size(); ++j) {
        const nlohmann::json& pp = (*pm)[j];
        const Where pwhere = pw.at(j);
        if (!pp.is_object()) pwhere.expected("an object with a string 'pattern'", pp);
        if (!pp.contains("pattern") || !pp["pattern"].is_string())
          pwhere.key("pattern").expected("a string", pp.contains("pattern") ? pp["pattern"] : nlohmann::json());
        bool is_regex = true;
        if (pp.contains("is_regex") && !pp["is_regex"].is_null()) {
          if (!pp["is_regex"].is_boolean()) pwhere.key("is_regex").expected("true or false", pp["is_regex"]);
          is_regex = pp["is_regex"].get<bool>();
        }
        Pattern p;
        for (const char* k : {"from", "to"}) {
          if (!pp.contains(k) || pp[k].is_null()) continue;
          if (!pp[k].is_number_integer() || pp[k].get<int64_t>() < 0)
            pwhere.key(k).expected("a non-negative integer", pp[k]);
          (std::string(k) == "from" ? p.from : p.to) = pp[k].get<uint64_t>();
          p.bounded = true;
        }
        if (p.from > p.to) pwhere.key("from").expected("at most 'to' (" + std::to_string(p.to) + ")", pp["from"]);
        std::string text = pp["pattern"].get<std::string>();
        std::string expr = is_regex ? text : HsDatabase::escape_literal(text);
        // bounded start offsets need the start of match, which single-match mode lacks
        unsigned fl = p.bounded ? (HS_FLAG_ALLOWEMPTY | HS_FLAG_SOM_LEFTMOST) : kHsDefaultFlags;
        auto [it, fresh] =
            dedup.try_emplace(std::make_tuple(expr, fl, p.from, p.to), static_cast<uint32_t>(sources.size()));
        if (fresh) {
          sources.push_back({expr, pwhere.field, fl, is_regex ? literal_length(expr) : static_cast<int>(text.size())});
          patterns_.push_back(p);
        }
        if (std::find(ids.begin(), ids.end(), it->second) == ids.end()) ids.push_back(it->second);
      }
    }
    if (ids.empty()) {
      plain.push_back(rule.header);
      plain_index_.push_back(static_cast<uint32_t>(i));
    } else {
      gated.push_back(rule.header);
      // First stage: the rule's literals of at least kSelectiveLiteral bytes; failing
      // that its literals; failing that all its patterns. Short literals ("\n", "'")
      // occur in most packets and would cost the first scan much for little selectivity.
      auto literal_at_least = [&](int n) {
        rule.first.clear();
        rule.rest.clear();
        for (uint32_t id : ids) (sources[id].literal >= n || !prefilter ? rule.first : rule.rest).push_back(id);
      };
      literal_at_least(kSelectiveLiteral);
      if (rule.first.empty()) literal_at_least(0);
      if (rule.first.empty()) rule.first.swap(rule.rest);
      for (uint32_t id : rule.first) patterns_[id].in_main = true;
    }
    rules_.push_back(std::move(rule));
  }

  rules_of_first_.resize(patterns_.size());
  for (size_t r = 0; r < rules_.size(); ++r)
    for (uint32_t id : rules_[r].first) rules_of_first_[id].push_back(static_cast<uint32_t>(r));
  std::vector<std::string> main_exprs, main_labels, rest_exprs, rest_labels;
  std::vector<unsigned> main_flags, rest_flags;
  for (uint32_t id = 0; id < patterns_.size(); ++id) {
    const Source& s = sources[id];
    if (patterns_[id].in_main) {
      main_ids_.push_back(id);
      main_exprs.push_back(s.expr);
      main_labels.push_back(s.label);
      main_flags.push_back(s.flags);
    } else {
      rest_ids_.push_back(id);
      rest_exprs.push_back(s.expr);
      rest_labels.push_back(s.label);
      rest_flags.push_back(s.flags);
    }
  }
  const Where who = c.where("match");
  main_db_ = std::make_unique<HsDatabase>(main_exprs, main_flags, args.workers, who, main_labels);
  rest_db_ = std::make_unique<HsDatabase>(rest_exprs, rest_flags, args.workers, who, rest_labels);
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

template <typename Db>
void HeaderPayloadClassifierElement::scan(const Db& db, const std::vector<uint32_t>& ids, const uint8_t* data,
                                          uint32_t len, Scratch& s, unsigned worker, bool collect) const {
  const uint32_t gen = s.gen;
  db.scan(worker, data, len, [&](unsigned local, uint64_t from, uint64_t) {
    uint32_t id = ids[local];
    if (s.pattern_gen[id] == gen) return false;
    const Pattern& pat = patterns_[id];
    if (pat.bounded && (from < pat.from || from > pat.to)) return false;
    s.pattern_gen[id] = gen;
    if (collect) s.matched.push_back(id);
    return false;
  });
}

std::vector<openbox::SharedHeaderMatches> HeaderPayloadClassifierElement::header_sets() const {
  return {plain_.rules(), payload_gate_.rules()};
}

int32_t HeaderPayloadClassifierElement::classify(Packet& p, Scratch& s, unsigned worker, const int32_t* pre) const {
  int32_t plain_rule = pre ? pre[0] : plain_.classify(p);
  int32_t best = plain_rule < 0 ? INT32_MAX : static_cast<int32_t>(plain_index_[plain_rule]);
  if (patterns_.empty() || (pre ? pre[1] : payload_gate_.classify(p)) < 0) return best == INT32_MAX ? -1 : best;

  if (++s.gen == 0) {  // wrapped: clear the stamps once every 2^32 packets
    std::fill(s.pattern_gen.begin(), s.pattern_gen.end(), 0);
    std::fill(s.rule_gen.begin(), s.rule_gen.end(), 0);
    s.gen = 1;
  }
  s.matched.clear();
  const ScanRegion r = scan_region(p, payload_only_);
  scan(*main_db_, main_ids_, r.data, r.len, s, worker, true);
  s.scans.add(1);

  s.candidates.clear();
  const uint32_t gen = s.gen;
  for (uint32_t id : s.matched)
    for (uint32_t rule : rules_of_first_[id]) {
      if (static_cast<int32_t>(rule) >= best) continue;
      if (s.rule_gen[rule] != gen) {
        s.rule_gen[rule] = gen;
        s.rule_hits[rule] = 0;
      }
      if (++s.rule_hits[rule] == rules_[rule].first.size()) s.candidates.push_back(rule);
    }
  std::sort(s.candidates.begin(), s.candidates.end());
  bool rest_scanned = false;
  for (uint32_t rule : s.candidates) {
    if (static_cast<int32_t>(rule) >= best) break;
    const Rule& ru = rules_[rule];
    if (!header_matches(p, ru.header)) continue;
    bool all = true;
    for (uint32_t id : ru.rest) {
      if (s.pattern_gen[id] == gen) continue;
      if (patterns_[id].in_main) {
        all = false;
        break;
      }  // in the first stage and not reported
      if (!rest_scanned) {
        scan(*rest_db_, rest_ids_, r.data, r.len, s, worker, false);
        rest_scanned = true;
        s.second_scans.add(1);
        if (s.pattern_gen[id] == gen) continue;
      }
      all = false;
      break;
    }
    if (all) {
      best = static_cast<int32_t>(rule);
      break;
    }
  }
  return best == INT32_MAX ? -1 : best;
}

void HeaderPayloadClassifierElement::push(uint16_t, Batch& batch, Context& ctx, const Outputs& out) {
  Scratch& s = scratch_[ctx.worker];
  uint16_t outs[kBatchSize];
  const void* self = static_cast<const Element*>(this);
  for (uint32_t i = 0; i < batch.n; ++i) {
    Packet& p = *batch.pkts[i];
    int32_t pre[Precomputed::kSets];
    const bool tagged = p.pre.block == self;
    if (tagged) {
      pre[0] = p.pre.rule[0];
      pre[1] = p.pre.rule[1];
      p.pre.block = nullptr;
    }
    int32_t r = classify(p, s, ctx.worker, tagged ? pre : nullptr);
    outs[i] = r < 0 ? kDropOutput : static_cast<uint16_t>(r);
  }
  stats_.prefetch(ctx.worker, outs, batch.n);
  prefetch_outputs(outs, batch.n, out);
  emit_by_output(batch, outs, ctx, out, [&](uint16_t o, uint32_t packets, uint64_t bytes) {
    if (o != kDropOutput) stats_.add(ctx.worker, o, packets, bytes, ctx.now_ns);
  });
}

nlohmann::json HeaderPayloadClassifierElement::read(std::string_view handle) const {
  nlohmann::json v;
  if (stats_.read_handle(handle, v)) return v;
  if (handle == "scans" || handle == "second_scans") {
    uint64_t n = 0;
    scratch_.for_each([&](const Scratch& s) { n += (handle == "scans" ? s.scans : s.second_scans).get(); });
    return n;
  }
  return Element::read(handle);
}

void HeaderPayloadClassifierElement::write(std::string_view handle, const nlohmann::json& value) {
  if (stats_.write_handle(handle, value)) return;
  Element::write(handle, value);
}

OBI_REGISTER_BLOCK(HeaderPayloadClassifier, HeaderPayloadClassifierElement);

}  // namespace obi::blocks
