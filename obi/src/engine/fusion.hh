// Fusion of header lookups (design/merge.md, step 3 "Compress"): a classifier C1 performs,
// in its own classification pass, the header lookups of the classifiers reached from its
// outputs through static blocks only, and leaves their first matches in the packet
// (Packet::pre), so a chain of classifiers costs one lookup instead of one per block.
//
// Two roles, reached through Element::header_lookups() / Element::header_fuser():
//   * HeaderLookups: a block whose per-packet header lookups can be done ahead for it. It
//     lists its rule sets; on push it uses Packet::pre for packets tagged for itself
//     (clearing the tag) and classifies every other packet itself, so it stays correct
//     for packets that reach it by any other path.
//   * HeaderFuser: a block that asks (config `fuse`) to do those lookups for named
//     downstream blocks. compile_graph resolves the names and the paths and hands it a
//     FusionPlan before the graph is published.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/packet.hh"
#include "openbox/header_match.hh"

namespace obi {

class Element;

class HeaderLookups {
 public:
  virtual ~HeaderLookups() = default;
  // Rule sets (each in priority order) whose first match the block needs per packet; at
  // most Precomputed::kSets. Shared, so a fusing block's lookup holds them without a
  // copy. Control thread.
  virtual std::vector<openbox::SharedHeaderMatches> header_sets() const = 0;
  // Whether every packet that reaches the block brings its results: each path into it
  // leaves a fusing block on an output fused for it. Such a block never looks up itself
  // and need not build faster structures than the ones it starts with. Control thread,
  // by compile_graph once the plans are in, also on a block carried from the running graph.
  virtual void set_fed_by_fusion(bool all) { (void)all; }
};

struct FusedTarget {
  std::string name;
  const Element* element = nullptr;  // the results are tagged for this element
  const HeaderLookups* lookups = nullptr;
};

struct FusionPlan {
  std::vector<FusedTarget> targets;  // in the order of the `fuse` list
  std::vector<int32_t> leads;        // per output of the fusing block: target index, or -1

  // Same targets (same element objects) reached from the same outputs.
  bool same_as(const FusionPlan& o) const {
    if (leads != o.leads || targets.size() != o.targets.size()) return false;
    for (size_t i = 0; i < targets.size(); ++i)
      if (targets[i].element != o.targets[i].element) return false;
    return true;
  }
};

class HeaderFuser {
 public:
  virtual ~HeaderFuser() = default;
  // Names of the blocks this one was asked to fuse (empty: none).
  virtual const std::vector<std::string>& fuse_names() const = 0;
  // Installs the plan: control thread, only on an element no running graph uses yet.
  // Throws openbox::ProtocolError when the targets' lookups do not fit in one pass.
  virtual void fuse(const FusionPlan& plan) = 0;
  virtual const FusionPlan& fusion() const = 0;
};

// Splits a batch into packets that bring results for `self` (their results go to
// rule[i * sets + k], the tag is cleared) and the others (indexes into `todo`); returns
// the number of others.
inline uint32_t take_precomputed(Packet* const* pkts, uint32_t n, const void* self, unsigned sets, int32_t* rule,
                                 uint32_t* todo) {
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; ++i) {
    Packet* p = pkts[i];
    if (p->pre.block == self) {
      for (unsigned k = 0; k < sets; ++k) rule[i * sets + k] = p->pre.rule[k];
      p->pre.block = nullptr;
    } else {
      todo[m++] = i;
    }
  }
  return m;
}

}  // namespace obi
