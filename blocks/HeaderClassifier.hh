// HeaderClassifier (spec 5.7): classifies packets by header fields.
//
// Ports: 1 input; one output per rule of `match`. A packet leaves on the output of the
// first rule (in list order) whose every field matches; a packet that matches no rule
// is dropped (counted in the engine's drops and in the `no_match` read handle).
// Config:
//   match: array of header matches (field name -> value; spec 4.1 fields, masks with
//          '%', complex values "[a:b]" / "[v1,v2,[a:]]"; grammar in protocol/README.md).
//          A rule on a field the packet lacks (e.g. TCP_DST on a UDP packet) does not match.
// Read handles: count, byte_count, rate, byte_rate (arrays, one entry per rule),
//               count_i ... (one rule), no_match.
// Write handles: reset_counts.
// Example:
//   {"type": "HeaderClassifier", "name": "fw", "config": {"match": [
//     {"ETH_TYPE": "0x0800", "IP_PROTO": 6, "TCP_DST": "[80,8080]"},
//     {"ETH_TYPE": "0x0800", "IPV4_SRC": "10.0.0.0/8"},
//     {}]}}
// The rules are compiled into a RuleClassifier (blocks/common/rule_classifier.hh).
#pragma once

#include "common/output_stats.hh"
#include "common/rule_classifier.hh"
#include "engine/element.hh"

namespace obi::blocks {

class HeaderClassifierElement final : public Element {
 public:
  explicit HeaderClassifierElement(const ElementArgs& args);

  uint16_t output_count() const override { return static_cast<uint16_t>(classifier_.rule_count()); }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

  const RuleClassifier& classifier() const { return classifier_; }

 private:
  RuleClassifier classifier_;
  OutputStats stats_;
  PerWorker<Counter> no_match_;
};

}  // namespace obi::blocks
