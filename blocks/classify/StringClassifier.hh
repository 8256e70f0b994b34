// StringClassifier (extension, classifier): classifies packets by fixed strings in their
// content, many at once: all strings are compiled into one Hyperscan database in literal
// mode (no regular-expression syntax: every byte of a string stands for itself), so a
// packet is scanned once however many strings there are.
//
// Ports: 1 input; one output per string. A packet leaves on the output of the first
// string (in list order, not by position in the packet) found anywhere in the scanned
// bytes; a packet that holds none is dropped.
// The strings are literals: any bytes, regex metacharacters included.
// Config keys, handles and port counts: blocks/catalogue/StringClassifier.json.
// Example:
//   {"type": "StringClassifier", "name": "words", "config": {"strings": ["cmd.exe", "/etc/passwd"],
//    "case_insensitive": true, "payload_only": true}}
#pragma once

#include "lib/scan_classifier.hh"

namespace obi::blocks {

class StringClassifierElement final : public ScanClassifier {
 public:
  explicit StringClassifierElement(const ElementArgs& args);
};

}  // namespace obi::blocks
