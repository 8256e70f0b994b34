// MultiClassifier: first-match classification of a packet against several header rule
// sets ("sets", up to kMaxSets) in one pass.
//
// A HeaderClassifier uses one set (its own rules). A classifier fused with the
// classifiers after it (design/merge.md, step 3) uses one set per fused block: one
// lookup answers its own first match and theirs, so a service chain of classifiers
// costs one classification instead of one per network function, and no product table
// of rule pairs is ever built.
//
// compile() is called on the control thread; classify_batch() on the workers, any
// number at once, without locks or allocation.
//
// Two structures answer: right after compile() a bit-vector classifier per set
// (RuleClassifier, compiled in milliseconds); then a shared background thread builds
// one rte_acl context over all sets (AclClassifier, one category per set), queued by
// compile() or later by start_build(), and when it is ready lookups switch to it
// through an atomic pointer read once per batch.
// Both give the same answers. Environment: OBI_CLASSIFIER=bitvector keeps the
// bit-vector structure only (no DPDK), =acl reports every ACL failure on stderr,
// =auto (default) notes only the first one.
//
// With the rte_acl structure comes one FlowCache per worker (lib/flow_cache.hh): an
// exact-match cache of its answers, keyed by its own lookup key, that
// classify_batch(..., worker) consults first, for lookups over at least
// FlowCache::kMinAclRules rte_acl rules. Environment: OBI_FLOW_CACHE=off disables it, =N
// gives every lookup caches of N entries per worker (default FlowCache::kDefaultEntries).
// A new compile() starts with empty caches.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/fields.hh"

namespace obi::blocks {

class MultiClassifier {
 public:
  static constexpr unsigned kMaxSets = 16;

  // `workers`: how many workers call classify_batch with a worker index (one cache each).
  explicit MultiClassifier(unsigned workers = 1);
  ~MultiClassifier();
  MultiClassifier(const MultiClassifier&) = delete;
  MultiClassifier& operator=(const MultiClassifier&) = delete;

  // When the background rte_acl build of a compile() starts: at once, or when start_build()
  // is called. A block starts it when its graph goes live (Element::activate), so that the
  // build does not compete with the rest of that graph's compile, and a graph that is
  // refused or only checked (obi check) builds nothing.
  enum class Build { kNow, kOnStart };

  // Replace the rule sets (control thread). Rule i of a set has priority i (0 first).
  // At most kMaxSets sets. The shared sets are held, not copied.
  void compile(std::vector<openbox::SharedHeaderMatches> sets, Build build = Build::kNow);
  void compile(std::vector<std::vector<openbox::HeaderMatch>> sets, Build build = Build::kNow);
  // Queues the background build that compile(..., kOnStart) left pending (control thread;
  // nothing when none is pending).
  void start_build();

  unsigned set_count() const;
  uint32_t rule_count(unsigned set) const;
  const openbox::HeaderMatch& rule(unsigned set, uint32_t i) const;

  // For n <= kBatchSize packets: out[i * set_count() + k] = index of the first rule of set
  // k that packet i matches, or -1.
  void classify_batch(Packet* const* pkts, uint32_t n, int32_t* out) const;
  // The same through worker `worker`'s flow cache (< workers; without one: as above).
  void classify_batch(Packet* const* pkts, uint32_t n, int32_t* out, unsigned worker) const;

  // Which structure answers lookups right now (read handle `engine` of the blocks):
  // "acl" or "bitvector".
  const char* engine() const;

  // Why the ACL structure is not (yet) answering: "building", "not started" (kOnStart,
  // before start_build()), "disabled (OBI_CLASSIFIER)", the build failure, or "" when it
  // answers.
  std::string engine_reason() const;

  // Waits until the ACL structure answers (true) or its build ended otherwise or the
  // timeout passed (false). For tests and benchmarks.
  bool wait_ready(std::chrono::milliseconds timeout) const;

  struct Stats {
    double compile_ms = 0;     // bit-vector structures, in compile()
    double acl_build_ms = -1;  // background ACL build (key layout, expansion, rte_acl_build); -1 if none
    uint32_t acl_rules = 0;    // ACL rules after multi-term expansion
    unsigned key_bytes = 0;    // per-packet ACL key
  };
  Stats stats() const;

  // The flow caches, summed over workers (any thread). entries: per worker, 0 when there
  // is none (disabled, or the rte_acl structure does not answer).
  struct CacheStats {
    uint32_t entries = 0;
    uint64_t hits = 0, misses = 0, bypassed = 0;
  };
  CacheStats cache_stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace obi::blocks
