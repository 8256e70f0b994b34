// StringClassifier (extension, classifier): classifies packets by fixed strings in their
// content, many at once: all strings are compiled into one Hyperscan database in literal
// mode (no regular-expression syntax: every byte of a string stands for itself), so a
// packet is scanned once however many strings there are.
//
// Ports: 1 input; one output per string. A packet leaves on the output of the first
// string (in list order, not by position in the packet) found anywhere in the scanned
// bytes; a packet that holds none is dropped.
// Config:
//   strings           array of non-empty strings (any bytes, including regex metacharacters)
//   case_insensitive  bool, default false: ASCII letters match either case
//   payload_only      bool, default false: scan only the payload after the network layers
// Read handles:  count, byte_count, rate, byte_rate (arrays), count_i, byte_count_i,
//                rate_i, byte_rate_i, payload_only
// Write handles: payload_only (bool), reset_counts, reset_all_counts, reset_i
// Example:
//   {"type": "StringClassifier", "name": "words", "config": {"strings": ["cmd.exe", "/etc/passwd"],
//    "case_insensitive": true, "payload_only": true}}
#pragma once

#include <atomic>
#include <memory>

#include "common/hs_database.hh"
#include "common/output_stats.hh"
#include "engine/element.hh"

namespace obi::blocks {

class StringClassifierElement final : public Element {
 public:
  explicit StringClassifierElement(const ElementArgs& args);

  uint16_t output_count() const override { return static_cast<uint16_t>(db_->size()); }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  std::unique_ptr<HsDatabase> db_;
  std::atomic<bool> payload_only_;
  OutputStats stats_;
};

}  // namespace obi::blocks
