// RegexClassifier (spec 5.9): classifies packets by regular expressions on their content.
//
// Ports: 1 input; one output per pattern. A packet leaves on the output of the first
// pattern (in list order, not by position in the packet) that matches anywhere in the
// scanned bytes; a packet that matches no pattern is dropped.
// The patterns are Hyperscan (PCRE-like) expressions.
// Config keys, handles and port counts: blocks/catalogue/RegexClassifier.json.
// Example:
//   {"type": "RegexClassifier", "name": "rc", "config": {"pattern": ["^GET ", "^POST ", ".*"],
//    "payload_only": true}}
// One Hyperscan database for all patterns, one scan per packet (stopped early once
// pattern 0 has matched).
#pragma once

#include "lib/scan_classifier.hh"

namespace obi::blocks {

class RegexClassifierElement final : public ScanClassifier {
 public:
  explicit RegexClassifierElement(const ElementArgs& args);
  // also answers the spec's spelling "paylaod_only"
  nlohmann::json read(std::string_view handle) const override;
};

}  // namespace obi::blocks
