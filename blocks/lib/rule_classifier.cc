#include "lib/rule_classifier.hh"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace obi::blocks {

using openbox::FieldMatch;
using openbox::HeaderMatch;
using openbox::MatchTerm;

namespace {

struct Interval {
  uint32_t rule;
  uint64_t lo, hi;
};

inline uint64_t width_mask(unsigned w) { return w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1; }

// Interval of a masked value on one (<= 64-bit) part; false when the mask is not a prefix.
bool masked_interval(uint64_t value, uint64_t mask, uint64_t wm, uint64_t& lo, uint64_t& hi) {
  mask &= wm;
  uint64_t free_bits = ~mask & wm;
  if ((free_bits & (free_bits + 1)) != 0) {
    lo = 0;
    hi = wm;
    return false;
  }
  lo = value & mask;
  hi = lo | free_bits;
  return true;
}

inline uint64_t part_of(u128 v, unsigned part) {
  return part == 1 ? static_cast<uint64_t>(v >> 64) : static_cast<uint64_t>(v);
}

// Interval of one term on one part of a field; false when it over-approximates.
bool term_interval(const MatchTerm& t, unsigned part, unsigned width, uint64_t& lo, uint64_t& hi) {
  const uint64_t wm = width_mask(width);
  if (t.kind == MatchTerm::Kind::kMasked)
    return masked_interval(part_of(t.value, part), part_of(t.mask, part), wm, lo, hi);
  if (part == 0) {
    lo = static_cast<uint64_t>(t.min);
    hi = static_cast<uint64_t>(t.max);
    return true;
  }
  uint64_t min_hi = part_of(t.min, 1), max_hi = part_of(t.max, 1);
  uint64_t min_lo = part_of(t.min, 2), max_lo = part_of(t.max, 2);
  if (part == 1) {
    lo = min_hi;
    hi = max_hi;
    return min_hi == max_hi || (min_lo == 0 && max_lo == ~uint64_t(0));
  }
  if (min_hi == max_hi) {
    lo = min_lo;
    hi = max_lo;
    return true;
  }
  lo = 0;
  hi = ~uint64_t(0);
  return min_lo == 0 && max_lo == ~uint64_t(0);
}

inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

void RuleClassifier::compile(std::vector<HeaderMatch> rules) {
  compile(std::make_shared<const std::vector<HeaderMatch>>(std::move(rules)));
}

void RuleClassifier::compile(openbox::SharedHeaderMatches rules) {
  rules_ = rules ? std::move(rules) : std::make_shared<const std::vector<HeaderMatch>>();
  nrules_ = static_cast<uint32_t>(rules_->size());
  fields_.clear();
  dims_.clear();
  const uint32_t n = rule_count();
  needs_verify_.assign(n, 0);
  words_ = (n + 63) / 64;
  summary_words_ = (words_ + 63) / 64;
  stride_ = summary_words_ + words_;

  bool used[static_cast<size_t>(MatchField::kCount)] = {};
  for (const auto& r : *rules_)
    for (const auto& fm : r.fields) used[static_cast<size_t>(fm.field)] = true;
  for (size_t f = 0; f < static_cast<size_t>(MatchField::kCount); ++f) {
    if (!used[f]) continue;
    auto field = static_cast<MatchField>(f);
    unsigned width = openbox::field_info(field).width;
    uint8_t slot = static_cast<uint8_t>(fields_.size());
    fields_.push_back(field);
    // multi-term values of 128-bit fields are not a product of their halves: verify
    if (width > 64)
      for (uint32_t r = 0; r < n; ++r)
        if (const FieldMatch* fm = (*rules_)[r].find(field); fm && fm->terms.size() > 1) needs_verify_[r] = 1;
    for (uint8_t part : width > 64 ? std::vector<uint8_t>{1, 2} : std::vector<uint8_t>{0}) {
      Dim d;
      d.field_slot = slot;
      d.part = part;
      d.width = static_cast<uint8_t>(std::min(width, 64u));
      compile_dim(d, field);
      dims_.push_back(std::move(d));
    }
  }
  std::stable_sort(dims_.begin(), dims_.end(), [](const Dim& a, const Dim& b) { return a.density < b.density; });
}

void RuleClassifier::compile_dim(Dim& d, MatchField field) {
  const uint32_t n = rule_count();
  const uint64_t wm = width_mask(d.width);

  std::vector<Interval> iv;
  std::vector<uint64_t> base(words_, 0);  // rules that do not constrain the field
  for (uint32_t r = 0; r < n; ++r) {
    const FieldMatch* fm = (*rules_)[r].find(field);
    if (!fm) {
      base[r / 64] |= uint64_t(1) << (r % 64);
      continue;
    }
    for (const MatchTerm& t : fm->terms) {
      uint64_t lo, hi;
      if (!term_interval(t, d.part, d.width, lo, hi)) needs_verify_[r] = 1;
      if (lo > hi) continue;
      iv.push_back({r, lo, std::min(hi, wm)});
    }
  }

  std::vector<uint64_t> bounds;
  bounds.reserve(2 * iv.size() + 1);
  bounds.push_back(0);
  for (const auto& i : iv) {
    bounds.push_back(i.lo);
    if (i.hi < wm) bounds.push_back(i.hi + 1);
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());

  std::vector<const Interval*> starts(iv.size()), ends;
  for (size_t i = 0; i < iv.size(); ++i) starts[i] = &iv[i];
  std::sort(starts.begin(), starts.end(), [](auto* a, auto* b) { return a->lo < b->lo; });
  ends.reserve(iv.size());
  for (const auto& i : iv)
    if (i.hi < wm) ends.push_back(&i);
  std::sort(ends.begin(), ends.end(), [](auto* a, auto* b) { return a->hi < b->hi; });

  // Classes: deduplicated bitmaps, found by an incrementally kept (Zobrist) hash.
  std::unordered_map<uint64_t, uint32_t> by_hash;
  by_hash.reserve(bounds.size() + 1);
  d.bits.clear();
  // at most one class per interval plus the absent one: reserving the bound avoids
  // regrowing (and copying) the bitmaps; untouched reserved pages cost nothing
  d.bits.reserve((bounds.size() + 1) * stride_);
  auto intern = [&](const std::vector<uint64_t>& bm, uint64_t h) -> uint32_t {
    for (;; h = mix64(h)) {
      auto [it, fresh] = by_hash.try_emplace(h, 0);
      if (!fresh) {
        if (std::memcmp(d.bits.data() + size_t(it->second) * stride_ + summary_words_, bm.data(), words_ * 8) == 0)
          return it->second;
        continue;  // a 64-bit collision: probe on
      }
      uint32_t c = static_cast<uint32_t>(d.bits.size() / stride_);
      it->second = c;
      size_t at = d.bits.size();
      d.bits.resize(at + stride_, 0);
      for (unsigned w = 0; w < words_; ++w) {
        d.bits[at + summary_words_ + w] = bm[w];
        if (bm[w]) d.bits[at + w / 64] |= uint64_t(1) << (w % 64);
      }
      return c;
    }
  };

  std::vector<uint64_t> cur = base;
  uint64_t h = 0;
  for (uint32_t r = 0; r < n; ++r)
    if (base[r / 64] >> (r % 64) & 1) h ^= mix64(r);
  d.absent_class = intern(base, h);

  std::vector<uint32_t> cover(n, 0);
  d.cls.assign(bounds.size(), 0);
  size_t si = 0, ei = 0;
  for (size_t b = 0; b < bounds.size(); ++b) {
    const uint64_t at = bounds[b];
    for (; si < starts.size() && starts[si]->lo == at; ++si) {
      uint32_t r = starts[si]->rule;
      if (cover[r]++ == 0 && !(base[r / 64] >> (r % 64) & 1)) {
        cur[r / 64] |= uint64_t(1) << (r % 64);
        h ^= mix64(r);
      }
    }
    for (; ei < ends.size() && ends[ei]->hi + 1 == at; ++ei) {
      uint32_t r = ends[ei]->rule;
      if (--cover[r] == 0 && !(base[r / 64] >> (r % 64) & 1)) {
        cur[r / 64] &= ~(uint64_t(1) << (r % 64));
        h ^= mix64(r);
      }
    }
    d.cls[b] = intern(cur, h);
  }

  // The full class (if any) and the mean density, weighted per elementary interval.
  const size_t nclasses = d.bits.size() / stride_;
  std::vector<uint32_t> pop(nclasses, 0);
  for (size_t c = 0; c < nclasses; ++c) {
    const uint64_t* w = d.bits.data() + c * stride_ + summary_words_;
    for (unsigned i = 0; i < words_; ++i) pop[c] += static_cast<uint32_t>(__builtin_popcountll(w[i]));
    if (pop[c] == n) d.full_class = static_cast<uint32_t>(c);
  }
  double sum = 0;
  for (uint32_t c : d.cls) sum += pop[c];
  d.density = n && !d.cls.empty() ? sum / (double(n) * d.cls.size()) : 1.0;

  // Lookup structure.
  const size_t e = bounds.size();
  d.table.clear();
  if (e <= 8) {
    d.mode = 0;
  } else if (d.width <= 16) {
    d.mode = 1;
    d.table.resize(size_t(1) << d.width);
    for (size_t b = 0; b < e; ++b) {
      uint64_t end = b + 1 < e ? bounds[b + 1] : wm + 1;
      std::fill(d.table.begin() + bounds[b], d.table.begin() + end, d.cls[b]);
    }
  } else {
    d.mode = 2;
    d.shift = d.width - 16;
    d.table.resize(65537);
    size_t idx = 0;
    for (uint64_t k = 0; k < 65536; ++k) {
      uint64_t v = k << d.shift;
      while (idx + 1 < e && bounds[idx + 1] <= v) ++idx;
      d.table[k] = static_cast<uint32_t>(idx);
    }
    d.table[65536] = static_cast<uint32_t>(e - 1);
  }
  d.bounds = std::move(bounds);
}

bool RuleClassifier::verify(uint32_t rule, const bool* present, const u128* values) const {
  for (const FieldMatch& fm : (*rules_)[rule].fields) {
    size_t slot = std::find(fields_.begin(), fields_.end(), fm.field) - fields_.begin();
    if (!present[slot] || !fm.contains(values[slot])) return false;
  }
  return true;
}

RuleClassifier::Info RuleClassifier::info() const {
  Info i;
  i.dims = static_cast<unsigned>(dims_.size());
  for (const auto& d : dims_) {
    i.classes += d.bits.size() / (stride_ ? stride_ : 1);
    i.intervals += d.bounds.size();
    i.bytes += d.bits.size() * 8 + d.bounds.size() * 8 + d.cls.size() * 4 + d.table.size() * 4;
  }
  for (auto v : needs_verify_) i.verified_rules += v;
  return i;
}

}  // namespace obi::blocks
