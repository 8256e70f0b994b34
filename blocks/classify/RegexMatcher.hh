// RegexMatcher (spec 5.8): matches packets against a set of regular expressions.
//
// Ports: 1 input; output 0 matched packets, output 1 unmatched packets.
// The patterns are Hyperscan (PCRE-like) expressions, without back-references; with
// match_all a packet matches only if every pattern does.
// Config keys, handles and port counts: blocks/catalogue/RegexMatcher.json.
// Example:
//   {"type": "RegexMatcher", "name": "m", "config": {"pattern": ["GET /admin", "(?i)passwd"],
//    "payload_only": true}}
// All patterns are compiled into one Hyperscan database; each packet is scanned once
// (with match_all false the scan stops at the first match).
#pragma once

#include <atomic>
#include <memory>

#include "engine/element.hh"
#include "lib/block_spec.hh"
#include "lib/hs_database.hh"
#include "lib/output_stats.hh"

namespace obi::blocks {

class RegexMatcherElement final : public Element {
 public:
  explicit RegexMatcherElement(const ElementArgs& args);

  uint16_t output_count() const override { return spec::RegexMatcher::kOutputs.count; }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  std::unique_ptr<HsDatabase> db_;
  std::atomic<bool> payload_only_, match_all_;
  OutputStats stats_;
};

}  // namespace obi::blocks
