// RegexClassifier (spec 5.9): classifies packets by regular expressions on their content.
//
// Ports: 1 input; one output per pattern. A packet leaves on the output of the first
// pattern (in list order, not by position in the packet) that matches anywhere in the
// scanned bytes; a packet that matches no pattern is dropped.
// Config:
//   pattern       array of regular expressions (Hyperscan/PCRE syntax)
//   payload_only  bool, default false: scan only the payload after the network layers
// Read handles:  count_i, byte_count_i, rate_i, byte_rate_i (also as arrays count, ...),
//                payload_only
// Write handles: payload_only (bool), reset_counts
// Example:
//   {"type": "RegexClassifier", "name": "rc", "config": {"pattern": ["^GET ", "^POST ", ".*"],
//    "payload_only": true}}
// One Hyperscan database for all patterns, one scan per packet (stopped early once
// pattern 0 has matched).
#pragma once

#include "common/scan_classifier.hh"

namespace obi::blocks {

class RegexClassifierElement final : public ScanClassifier {
 public:
  explicit RegexClassifierElement(const ElementArgs& args);
  // also answers the spec's spelling "paylaod_only"
  nlohmann::json read(std::string_view handle) const override;
};

}  // namespace obi::blocks
