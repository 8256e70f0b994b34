// HeaderClassifier (spec 5.7): classifies packets by header fields.
//
// Ports: 1 input; one output per rule of `match`. A packet leaves on the output of the
// first rule (in list order) whose every field matches; a packet that matches no rule
// is dropped (counted in the engine's drops and in the `no_match` read handle).
// Config:
//   match: array of header matches (field name -> value; spec 4.1 fields, masks with
//          '%', complex values "[a:b]" / "[v1,v2,[a:]]"; grammar in protocol/README.md).
//          A rule on a field the packet lacks (e.g. TCP_DST on a UDP packet) does not match.
//   fuse:  (extension, optional) names of at most 15 downstream HeaderClassifier /
//          HeaderPayloadClassifier blocks whose header lookups this block performs in
//          its own pass (engine/fusion.hh). A target is fused on the outputs from which
//          it is the first non-static block; packets leaving there carry its results
//          (Packet::pre). The targets are resolved by the graph compiler (BAD_BLOCK
//          for an unknown name or a block of another type). A hint: results, outputs and
//          counters are the same with or without it.
// Config keys, handles and port counts: blocks/catalogue/HeaderClassifier.json.
// Example:
//   {"type": "HeaderClassifier", "name": "fw", "config": {"match": [
//     {"ETH_TYPE": "0x0800", "IP_PROTO": 6, "TCP_DST": "[80,8080]"},
//     {"ETH_TYPE": "0x0800", "IPV4_SRC": "10.0.0.0/8"},
//     {}], "fuse": ["ips"]}}
// The rules are set 0 of a MultiClassifier (blocks/lib/multi_classifier.hh); fused
// targets add their sets after it. A block with `fuse` compiles once, when the graph
// compiler hands it its plan (fuse()), not before: the set-0-only structure (and its
// rte_acl build) would be thrown away at once. The rte_acl build starts in activate(),
// when the block's graph goes live, not while the rest of the graph still compiles. As
// a fusion target the block takes its result from the packet when the packet brings one
// and classifies the others itself; when every path into it is fused (set_fed_by_fusion)
// and it fuses no block itself, it builds no rte_acl structure of its own and its
// `engine` handle reads "fused".
#pragma once

#include <atomic>
#include <memory>

#include "engine/element.hh"
#include "engine/fusion.hh"
#include "lib/block_spec.hh"
#include "lib/multi_classifier.hh"
#include "lib/output_stats.hh"

namespace obi::blocks {

class HeaderClassifierElement final : public Element, public HeaderLookups, public HeaderFuser {
 public:
  explicit HeaderClassifierElement(const ElementArgs& args);

  uint16_t output_count() const override {
    return static_cast<uint16_t>(spec::HeaderClassifier::kOutputs.ports(rules_->size()));
  }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  std::string settle(std::chrono::milliseconds timeout) const override;
  void activate() override;
  void write(std::string_view handle, const nlohmann::json& value) override;

  HeaderLookups* header_lookups() override { return this; }
  HeaderFuser* header_fuser() override { return this; }
  std::vector<openbox::SharedHeaderMatches> header_sets() const override;
  void set_fed_by_fusion(bool all) override;
  const std::vector<std::string>& fuse_names() const override { return fuse_names_; }
  void fuse(const FusionPlan& plan) override;
  const FusionPlan& fusion() const override { return plan_; }

  const MultiClassifier& multi() const { return mc_; }

 private:
  struct Slot {           // a fused target whose results the lookup produces
    const void* block;    // Packet::pre.block value
    unsigned base, sets;  // its sets within the lookup's
  };

  const void* self() const { return static_cast<const Element*>(this); }

  MultiClassifier mc_;
  openbox::SharedHeaderMatches rules_;  // set 0, as configured
  std::vector<std::string> fuse_names_;
  FusionPlan plan_;
  std::vector<Slot> slots_;
  std::vector<int32_t> slot_of_output_;  // per output: index into slots_, -1 none
  OutputStats stats_;
  PerWorker<Counter> no_match_;
  bool active_ = false;  // activate() was called (control thread)
  // every packet brings its results: no rte_acl build. Written while a new graph compiles,
  // read by handle reads of the running one.
  std::atomic<bool> fed_by_fusion_{false};
};

}  // namespace obi::blocks
