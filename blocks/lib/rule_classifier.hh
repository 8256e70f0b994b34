// RuleClassifier: a compiled first-match classifier over header-match rules.
//
// Compilation (per dimension = one header field, or one 64-bit half of a 128-bit field):
//   * every rule's terms become value intervals (ranges and prefix masks are exact;
//     other masks and multi-term IPv6 values are widened to an interval and the rule
//     is flagged for exact verification);
//   * the interval ends cut the field's value space into elementary intervals; a sweep
//     over them gives each interval the bitmap of rules that accept it; identical
//     bitmaps are shared (equivalence classes), each with a summary bitmap (one bit per
//     non-zero 64-bit word) for early exit;
//   * an extra "absent" class holds the rules that do not constrain the field, for
//     packets that lack the layer.
// Lookup: per dimension a direct table (fields of <= 16 bits) or a 16-bit jump table
// plus a short binary search gives the class; the classes' bitmaps are ANDed word by
// word, guided by the ANDed summaries; the lowest set bit is the first matching rule
// (after exact verification where flagged). Compile time is O(E * W) per dimension
// for E elementary intervals and W = rules/64 words; lookup touches D classes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lib/fields.hh"

namespace obi::blocks {

class RuleClassifier {
 public:
  static constexpr unsigned kMaxDims = 80;  // 38 fields, 128-bit ones count twice

  RuleClassifier() = default;
  explicit RuleClassifier(std::vector<openbox::HeaderMatch> rules) { compile(std::move(rules)); }
  explicit RuleClassifier(openbox::SharedHeaderMatches rules) { compile(std::move(rules)); }

  // Replace the rule set (control thread). Rule i has priority i (0 = highest).
  void compile(std::vector<openbox::HeaderMatch> rules);
  void compile(openbox::SharedHeaderMatches rules);

  uint32_t rule_count() const { return nrules_; }
  const openbox::HeaderMatch& rule(uint32_t i) const { return (*rules_)[i]; }
  const openbox::SharedHeaderMatches& rules() const { return rules_; }

  // Index of the first rule that matches `p`, or -1.
  int32_t classify(Packet& p) const {
    int32_t found = -1;
    for_each_match(p, [&](uint32_t r) {
      found = static_cast<int32_t>(r);
      return true;
    });
    return found;
  }

  // Calls f(rule) for every matching rule in priority order until f returns true.
  template <typename F>
  void for_each_match(Packet& p, F&& f) const;

  // classify() for up to kBatchSize packets, in groups whose lookups are done first and
  // whose bitmap lines are prefetched before the AND step.
  void classify_batch(Packet* const* pkts, uint32_t n, int32_t* out) const;

  struct Info {
    unsigned dims = 0;
    uint64_t classes = 0, intervals = 0, bytes = 0;
    unsigned verified_rules = 0;
  };
  Info info() const;

 private:
  struct State;
  struct Dim {
    uint8_t field_slot = 0;  // index into fields_ (the extracted value)
    uint8_t part = 0;        // 0: whole value, 1: bits 127..64, 2: bits 63..0
    uint8_t width = 0;       // bits of this dimension's values
    uint8_t mode = 0;        // 0: search bounds, 1: direct table, 2: jump table + search
    uint32_t absent_class = 0;
    uint32_t full_class = UINT32_MAX;  // the class holding every rule (skipped by lookups)
    double density = 0;                // mean fraction of rules per interval (dims are sorted by it)
    std::vector<uint64_t> bounds;      // start of each elementary interval, bounds[0] = 0
    std::vector<uint32_t> cls;         // class of each elementary interval
    std::vector<uint32_t> table;       // mode 1: class per value; mode 2: interval per top-16 key (+1)
    std::vector<uint64_t> bits;        // class bitmaps, stride_ words each (summary first)
    unsigned shift = 0;                // mode 2: value >> shift = jump key

    uint32_t lookup(uint64_t v) const;
    uint64_t key(const State& st) const;
  };

  // Per-packet lookup state: the extracted fields and the class bitmap of each dimension.
  struct State {
    bool present[static_cast<size_t>(openbox::MatchField::kCount)];
    u128 values[static_cast<size_t>(openbox::MatchField::kCount)];
    const uint64_t* bm[kMaxDims];
    uint32_t nd;
  };
  void extract(Packet& p, State& st) const;
  void prefetch_tables(const State& st) const;
  void lookup(State& st) const;
  void prepare(Packet& p, State& st) const;
  template <typename F>
  void match(const State& st, F&& f) const;

  void compile_dim(Dim& d, openbox::MatchField field);
  bool verify(uint32_t rule, const bool* present, const u128* values) const;

  openbox::SharedHeaderMatches rules_ = std::make_shared<const std::vector<openbox::HeaderMatch>>();
  uint32_t nrules_ = 0;                      // rules_->size(), read on the packet path
  std::vector<openbox::MatchField> fields_;  // distinct fields used, extracted once per packet
  std::vector<Dim> dims_;
  std::vector<uint8_t> needs_verify_;  // per rule
  unsigned words_ = 0, summary_words_ = 0, stride_ = 0;
};

inline uint32_t RuleClassifier::Dim::lookup(uint64_t v) const {
  if (mode == 1) return table[v];
  size_t lo = 0, hi = bounds.size() - 1;
  if (mode == 2) {
    uint64_t k = v >> shift;
    lo = table[k];
    hi = table[k + 1];
  }
  // last index in [lo, hi] with bounds[i] <= v (bounds[lo] <= v holds)
  while (lo < hi) {
    size_t mid = (lo + hi + 1) >> 1;
    if (bounds[mid] <= v) lo = mid;
    else hi = mid - 1;
  }
  return cls[lo];
}

inline void RuleClassifier::extract(Packet& p, State& st) const {
  const size_t nf = fields_.size();
  for (size_t i = 0; i < nf; ++i) st.present[i] = extract_field(p, fields_[i], st.values[i]);
}

inline uint64_t RuleClassifier::Dim::key(const State& st) const {
  u128 v = st.values[field_slot];
  return part == 1 ? static_cast<uint64_t>(v >> 64) : static_cast<uint64_t>(v);
}

inline void RuleClassifier::prefetch_tables(const State& st) const {
  for (const Dim& d : dims_) {
    if (!st.present[d.field_slot] || d.mode == 0) continue;
    uint64_t k = d.key(st);
    __builtin_prefetch(d.table.data() + (d.mode == 1 ? k : k >> d.shift));
  }
}

inline void RuleClassifier::lookup(State& st) const {
  // Most selective dimensions first (dims_ is sorted), so that the word AND stops early;
  // a class that holds every rule constrains nothing and is left out.
  uint32_t nd = 0;
  for (const Dim& d : dims_) {
    uint32_t c = st.present[d.field_slot] ? d.lookup(d.key(st)) : d.absent_class;
    if (c != d.full_class) st.bm[nd++] = d.bits.data() + size_t(c) * stride_;
  }
  st.nd = nd;
}

inline void RuleClassifier::prepare(Packet& p, State& st) const {
  extract(p, st);
  lookup(st);
}

template <typename F>
void RuleClassifier::match(const State& st, F&& f) const {
  const uint32_t nrules = rule_count();
  const size_t nd = st.nd;
  if (nd == 0) {  // nothing constrains this packet: rules in order
    for (uint32_t r = 0; r < nrules; ++r)
      if (!needs_verify_[r] || verify(r, st.present, st.values)) {
        if (f(r)) return;
      }
    return;
  }
  const uint64_t* const* bm = st.bm;
  for (unsigned s = 0; s < summary_words_; ++s) {
    uint64_t sum = bm[0][s];
    for (size_t i = 1; i < nd && sum; ++i) sum &= bm[i][s];
    while (sum) {
      unsigned w = s * 64 + static_cast<unsigned>(__builtin_ctzll(sum));
      sum &= sum - 1;
      uint64_t word = bm[0][summary_words_ + w];
      for (size_t i = 1; i < nd && word; ++i) word &= bm[i][summary_words_ + w];
      while (word) {
        uint32_t r = w * 64 + static_cast<uint32_t>(__builtin_ctzll(word));
        word &= word - 1;
        if (needs_verify_[r] && !verify(r, st.present, st.values)) continue;
        if (f(r)) return;
      }
    }
  }
}

template <typename F>
void RuleClassifier::for_each_match(Packet& p, F&& f) const {
  if (nrules_ == 0) return;
  State st;
  prepare(p, st);
  match(st, f);
}

inline void RuleClassifier::classify_batch(Packet* const* pkts, uint32_t n, int32_t* out) const {
  if (nrules_ == 0) {
    for (uint32_t i = 0; i < n; ++i) out[i] = -1;
    return;
  }
  // Two stages over a group of packets, each prefetching what the next one reads: fields
  // and table slots, then classes and their bitmaps. Groups of kGroup: a State is over
  // 1 KB, and the states of a whole batch fill L1 and evict the lines the stages
  // prefetch. A third stage that ANDed the summaries to prefetch the first candidate
  // words did that work twice per packet and made the batch slower than one at a time.
  constexpr uint32_t kGroup = 8;
  State st[kGroup];
  for (uint32_t base = 0; base < n; base += kGroup) {
    const uint32_t m = n - base < kGroup ? n - base : kGroup;
    Packet* const* pk = pkts + base;
    for (uint32_t i = 0; i < m; ++i) {
      extract(*pk[i], st[i]);
      prefetch_tables(st[i]);
    }
    for (uint32_t i = 0; i < m; ++i) {
      lookup(st[i]);
      for (uint32_t d = 0; d < st[i].nd; ++d) __builtin_prefetch(st[i].bm[d]);
    }
    for (uint32_t i = 0; i < m; ++i) {
      int32_t found = -1;
      match(st[i], [&](uint32_t r) {
        found = static_cast<int32_t>(r);
        return true;
      });
      out[base + i] = found;
    }
  }
}

}  // namespace obi::blocks
