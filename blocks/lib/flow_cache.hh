// FlowCache: an exact-match cache of classification results in front of the rte_acl
// lookup of a header classifier (AclClassifier), one per worker and classifier instance.
//
// Key: the classifier's own lookup key as built from the packet (every byte of it, so
// every field any rule reads) plus the packet's layer bits that the classifier checks
// outside the ACL. Value: the first match of every rule set of the lookup (a fused
// classifier answers several sets at once). A hit is therefore exactly what the lookup
// would have answered; there is nothing to invalidate, and a new rule set comes with a new
// AclClassifier and so with empty caches.
//
// Layout: buckets of kWays entries, indexed by the flow hash the packet already carries
// (Packet::flow_hash). That hash is symmetric, so both directions of a connection meet in
// one bucket; a new entry goes to way 0 and pushes the others one way down, the last one
// out. Entries hold the key, the layer bits, the full hash (quick reject) and the
// results, in 32-byte multiples; a 5-tuple key (16 bytes) with up to two sets fills 32
// bytes, so a bucket is two adjacent cache lines. Four ways rather than two: with 12,308
// keys of the fw-4560 trace in 65,536 entries, two ways lost 2-3 % of the lookups to
// collisions, each a scalar rte_acl walk; four lose about 0.1 % for one more line per
// probe. Fixed size from construction on: nothing is allocated on the packet path, and
// one worker owns each cache, so no locks.
//
// Adaptive: lookups are counted per epoch of kEpoch packets; when an epoch hits less than
// kMinHitRateNum / kMinHitRateDen of them the worker skips the cache for the next
// kSkipPackets packets, then probes again. The bar is high because misses are dear:
// rte_acl walks a full batch's tries in parallel (AVX-512, 32 lanes), and the few misses
// of a batch cost nearly what the whole batch did (below 8 it even falls back to scalar
// walks, one memory latency per trie level each), so the cache pays off only when almost
// every packet hits (on fw-4560: 82 % hits was slower than no cache, 97 % much faster;
// BENCHMARKS.md).
// Counters (hits, misses, packets that bypassed it) are read by the control thread.
//
//   FlowCache c(key_stride, sets, FlowCache::kDefaultEntries);
//   if (c.active(n)) { c.prefetch(h); ... if (const int32_t* r = c.find(h, key, tag)) ...
//                      else c.insert(h, key, tag, results); ... c.account(hits, misses); }
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

#include "engine/element.hh"

namespace obi::blocks {

class alignas(64) FlowCache {
 public:
  static constexpr uint32_t kDefaultEntries = 65536;
  static constexpr unsigned kWays = 4;
  // By default only lookups over this many rte_acl rules get caches: small tries answer
  // almost as fast as a cache probe (100 ClassBench rules: 17 ns per packet in full
  // batches where 4560 took 146, same run), so a cache would mostly cost memory.
  static constexpr uint32_t kMinAclRules = 1000;
  static constexpr uint32_t kMaxEntries = 1u << 22;
  static constexpr uint32_t kEpoch = 4096;                           // lookups per hit-rate verdict
  static constexpr uint32_t kMinHitRateNum = 7, kMinHitRateDen = 8;  // bypass below 7/8 hits
  static constexpr uint32_t kSkipPackets = 16 * kEpoch;

  // key_stride: key bytes, a multiple of 16 (AclClassifier's stride); results: int32 values
  // per entry; entries: rounded up to a power of two, at least kWays, at most kMaxEntries.
  FlowCache(unsigned key_stride, unsigned results, uint32_t entries);
  FlowCache(const FlowCache&) = delete;
  FlowCache& operator=(const FlowCache&) = delete;

  uint32_t entries() const { return (mask_ + 1) * kWays; }
  unsigned results() const { return results_; }

  // Per batch of n packets: false when this worker bypasses the cache right now (the n
  // packets are counted as bypassed).
  bool active(uint32_t n) {
    if (skip_ == 0) [[likely]]
      return true;
    skip_ = skip_ > n ? skip_ - n : 0;
    bypassed_.add(n);
    return false;
  }

  void prefetch(uint32_t hash) const {
    const uint8_t* b = bucket(hash);
    for (unsigned o = 0; o < bucket_bytes_; o += 64) __builtin_prefetch(b + o);
  }

  // The results stored for (key, tag), or nullptr.
  const int32_t* find(uint32_t hash, const uint8_t* key, uint32_t tag) const {
    const uint8_t* b = bucket(hash);
    for (unsigned w = 0; w < kWays; ++w) {
      const uint8_t* e = b + w * entry_bytes_;
      if (holds(e, hash, key, tag)) return reinterpret_cast<const int32_t*>(e + stride_ + 8);
    }
    return nullptr;
  }

  void insert(uint32_t hash, const uint8_t* key, uint32_t tag, const int32_t* results) {
    uint8_t* b = bucket(hash);
    // the ways move one down, unless way 0 holds this key already (two packets of a new
    // flow in one batch both miss)
    if ((load32(b + stride_) & kValid) && !holds(b, hash, key, tag))
      std::memmove(b + entry_bytes_, b, (kWays - 1) * entry_bytes_);
    std::memcpy(b, key, stride_);
    const uint32_t meta[2] = {tag | kValid, hash};
    std::memcpy(b + stride_, meta, sizeof meta);
    std::memcpy(b + stride_ + 8, results, results_ * sizeof(int32_t));
  }

  // After a batch's lookups: count them and decide whether the next ones bypass.
  void account(uint32_t hits, uint32_t misses) {
    if (hits) hits_.add(hits);
    if (misses) misses_.add(misses);
    epoch_hits_ += hits;
    epoch_lookups_ += hits + misses;
    if (epoch_lookups_ >= kEpoch) {
      if (uint64_t(epoch_hits_) * kMinHitRateDen < uint64_t(epoch_lookups_) * kMinHitRateNum) skip_ = kSkipPackets;
      epoch_hits_ = epoch_lookups_ = 0;
    }
  }

  struct Stats {
    uint64_t hits = 0, misses = 0, bypassed = 0;
  };
  Stats stats() const { return Stats{hits_.get(), misses_.get(), bypassed_.get()}; }  // any thread

 private:
  // Entry: key (stride_ bytes), tag (layer bits | kValid), hash, results_ int32 values.
  static constexpr uint32_t kValid = 1u << 31;  // layer bits use the low 20 bits
  struct FreeAligned {
    void operator()(uint8_t* p) const;
  };

  static uint32_t load32(const uint8_t* at) {
    uint32_t v;
    std::memcpy(&v, at, 4);
    return v;
  }
  uint8_t* bucket(uint32_t hash) const { return table_.get() + static_cast<size_t>(hash & mask_) * bucket_bytes_; }
  bool holds(const uint8_t* e, uint32_t hash, const uint8_t* key, uint32_t tag) const {
    return load32(e + stride_ + 4) == hash && load32(e + stride_) == (tag | kValid) && same_key(e, key);
  }
  bool same_key(const uint8_t* a, const uint8_t* b) const {
    uint64_t diff = 0;
    for (unsigned o = 0; o < stride_; o += 16) {
      uint64_t x[2], y[2];
      std::memcpy(x, a + o, 16);
      std::memcpy(y, b + o, 16);
      diff |= (x[0] ^ y[0]) | (x[1] ^ y[1]);
    }
    return diff == 0;
  }

  unsigned stride_, results_, entry_bytes_, bucket_bytes_;
  uint32_t mask_;  // buckets - 1
  std::unique_ptr<uint8_t[], FreeAligned> table_;
  // this worker's epoch state
  uint32_t epoch_lookups_ = 0, epoch_hits_ = 0, skip_ = 0;
  Counter hits_, misses_, bypassed_;
};

}  // namespace obi::blocks
