#include "lib/nat_table.hh"

#include <atomic>
#include <cstdio>

namespace obi::blocks {

namespace {

inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

inline void put(uint64_t& w, uint64_t v) { std::atomic_ref<uint64_t>(w).store(v, std::memory_order_relaxed); }
inline uint64_t get(const uint64_t& w) {
  return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(w)).load(std::memory_order_relaxed);
}

std::string ip(uint32_t a) {
  char b[20];
  std::snprintf(b, sizeof b, "%u.%u.%u.%u", a >> 24, a >> 16 & 0xff, a >> 8 & 0xff, a & 0xff);
  return b;
}

}  // namespace

uint32_t hash_key(const FlowKey& k) {
  uint64_t x = mix(k.w0() * 0x9e3779b97f4a7c15ULL ^ k.w1());
  return static_cast<uint32_t>(x ^ (x >> 32));
}

void NatTable::init(uint32_t max_flows) {
  max_flows_ = max_flows;
  flows_.reset(new NatFlow[max_flows]());
  free_.reset(new uint32_t[max_flows]);
  for (uint32_t i = 0; i < max_flows; ++i) free_[i] = max_flows - 1 - i;
  free_top_ = max_flows;
  uint32_t size = 16;
  while (size < 4ull * max_flows) size <<= 1;
  index_.reset(new uint32_t[size]());
  mask_ = size - 1;
}

uint32_t NatTable::slot_of(const FlowKey& k, uint32_t h) const {
  const uint64_t w0 = k.w0(), w1 = k.w1();
  for (uint32_t i = h & mask_;; i = (i + 1) & mask_) {
    uint32_t e = index_[i];
    if (e == 0) return kNone;
    const NatFlow& f = flows_[(e - 1) >> 1];
    unsigned d = (e - 1) & 1;
    if (f.hash[d] == h && f.key[d][0] == w0 && f.key[d][1] == w1) return i;
  }
}

uint32_t NatTable::find(const FlowKey& k, uint64_t now, unsigned& dir) {
  uint32_t s = slot_of(k, hash_key(k));
  if (s == kNone) return kNone;
  uint32_t e = index_[s];
  uint32_t f = (e - 1) >> 1;
  if (flows_[f].expiry_ns <= now) {
    erase(f);
    return kNone;
  }
  dir = (e - 1) & 1;
  return f;
}

void NatTable::index_insert(uint32_t entry, uint32_t h) {
  uint32_t i = h & mask_;
  while (index_[i] != 0) i = (i + 1) & mask_;
  index_[i] = entry;
}

void NatTable::index_erase(uint32_t entry, uint32_t h) {
  uint32_t i = h & mask_;
  while (index_[i] != entry) {
    if (index_[i] == 0) return;  // not indexed (cannot happen for a live flow)
    i = (i + 1) & mask_;
  }
  // Backward-shift deletion: pull later entries of the probe run into the hole when
  // their home slot is not between the hole and their position.
  uint32_t j = i;
  for (;;) {
    j = (j + 1) & mask_;
    uint32_t e = index_[j];
    if (e == 0) break;
    uint32_t home = flows_[(e - 1) >> 1].hash[(e - 1) & 1] & mask_;
    bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (!stays) {
      index_[i] = e;
      i = j;
    }
  }
  index_[i] = 0;
}

void NatTable::erase(uint32_t f) {
  NatFlow& fl = flows_[f];
  if (!(fl.meta & NatFlow::kLive)) return;
  index_erase((f << 1 | 0) + 1, fl.hash[0]);
  index_erase((f << 1 | 1) + 1, fl.hash[1]);
  put(fl.meta, 0);
  free_[free_top_++] = f;
  count_.store(count_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
}

bool NatTable::evict(uint64_t now) {
  // Look at up to 64 live flows from the clock hand: an expired one goes first,
  // otherwise the first one past its guarantee.
  uint32_t fallback = kNone, seen = 0;
  for (uint32_t n = 0; n < max_flows_ && seen < 64; ++n) {
    uint32_t f = hand_;
    hand_ = hand_ + 1 == max_flows_ ? 0 : hand_ + 1;
    const NatFlow& fl = flows_[f];
    if (!(fl.meta & NatFlow::kLive)) continue;
    ++seen;
    if (fl.expiry_ns <= now) {
      erase(f);
      return true;
    }
    if (fallback == kNone && fl.guarantee_ns <= now) fallback = f;
  }
  if (fallback == kNone) return false;
  erase(fallback);
  return true;
}

uint32_t NatTable::insert(const FlowKey& fwd, const FlowKey& fwd_to, uint16_t fout, const FlowKey& rev,
                          const FlowKey& rev_to, uint16_t rout, uint64_t now, uint32_t limit) {
  if (count() >= limit || free_top_ == 0) {
    if (!evict(now)) return kNone;
    if (count() >= limit) return kNone;  // the limit was lowered below the live count
  }
  uint32_t f = free_[--free_top_];
  NatFlow& fl = flows_[f];
  put(fl.key[0][0], fwd.w0());
  put(fl.key[0][1], fwd.w1());
  put(fl.key[1][0], rev.w0());
  put(fl.key[1][1], rev.w1());
  put(fl.rewrite[0][0], fwd_to.w0());
  put(fl.rewrite[0][1], fwd_to.w1());
  put(fl.rewrite[1][0], rev_to.w0());
  put(fl.rewrite[1][1], rev_to.w1());
  fl.hash[0] = hash_key(fwd);
  fl.hash[1] = hash_key(rev);
  fl.packets = 0;
  fl.state = 0;
  fl.expiry_ns = now;
  fl.guarantee_ns = now;
  put(fl.meta, NatFlow::kLive | uint64_t(fout) << 16 | rout);
  index_insert((f << 1 | 0) + 1, fl.hash[0]);
  index_insert((f << 1 | 1) + 1, fl.hash[1]);
  count_.store(count_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  return f;
}

bool NatTable::reap(uint64_t now, uint32_t budget) {
  for (uint32_t n = 0; n < budget && max_flows_ > 0; ++n) {
    uint32_t f = reap_pos_;
    if (++reap_pos_ == max_flows_) reap_pos_ = 0;
    const NatFlow& fl = flows_[f];
    if ((fl.meta & NatFlow::kLive) && fl.expiry_ns <= now) erase(f);
    if (reap_pos_ == 0) return true;
  }
  return false;
}

std::string NatTable::describe(uint8_t proto) const {
  std::string out;
  for (uint32_t f = 0; f < max_flows_; ++f) {
    const NatFlow& fl = flows_[f];
    uint64_t meta = get(fl.meta);
    if (!(meta & NatFlow::kLive)) continue;
    for (unsigned d = 0; d < 2; ++d) {
      FlowKey k = FlowKey::from(get(fl.key[d][0]), get(fl.key[d][1]));
      if (k.proto != proto) break;
      FlowKey to = FlowKey::from(get(fl.rewrite[d][0]), get(fl.rewrite[d][1]));
      unsigned fo = unsigned(meta >> 16 & 0xffff), ro = unsigned(meta & 0xffff);
      char line[160];
      std::snprintf(line, sizeof line, "(%s, %u, %s, %u) => (%s, %u, %s, %u) [%s%u %s%u]\n", ip(k.sa).c_str(),
                    unsigned(k.sp), ip(k.da).c_str(), unsigned(k.dp), ip(to.sa).c_str(), unsigned(to.sp),
                    ip(to.da).c_str(), unsigned(to.dp), d == 0 ? "*" : "", fo, d == 1 ? "*" : "", ro);
      out += line;
    }
  }
  return out;
}

}  // namespace obi::blocks
