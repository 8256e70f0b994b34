// ContentClassifier (spec 5.6): classifies packets by bytes at fixed offsets.
//
// Ports: 1 input; one output per pattern. A packet leaves on the output of the first
// pattern all of whose clauses hold; a packet that matches no pattern is dropped.
// Config:
//   pattern: array of strings, one per output. A pattern is space-separated clauses
//     "offset/value" or "offset/value%mask": offset decimal (from the first byte of the
//     Ethernet frame), value and mask hex with an even number of digits, '?' a don't-care
//     nibble, the mask as long as the value. A leading '!' negates a clause. "-" matches
//     every packet. A clause that reaches past the end of the frame does not hold.
// Config keys, handles and port counts: blocks/catalogue/ContentClassifier.json.
// Example: {"pattern": ["12/0806 20/0001", "12/0800 23/06", "12/0800 !23/06", "-"]}
//          (ARP requests, IPv4 TCP, other IPv4, the rest)
#pragma once

#include <vector>

#include "engine/element.hh"
#include "lib/block_spec.hh"
#include "lib/output_stats.hh"

namespace obi::blocks {

class ContentClassifierElement final : public Element {
 public:
  explicit ContentClassifierElement(const ElementArgs& args);

  uint16_t output_count() const override {
    return static_cast<uint16_t>(spec::ContentClassifier::kOutputs.ports(patterns_.size()));
  }
  void push(uint16_t input, Batch& batch, Context& ctx, const Outputs& out) override;
  nlohmann::json read(std::string_view handle) const override;
  void write(std::string_view handle, const nlohmann::json& value) override;

 private:
  struct Clause {
    uint32_t offset = 0;
    bool negated = false;
    std::vector<uint8_t> value, mask;  // value already ANDed with mask
  };
  struct Pattern {
    std::vector<Clause> clauses;
  };  // empty: matches every packet

  int32_t classify(const Packet& p) const;

  std::vector<Pattern> patterns_;
  OutputStats stats_;
};

}  // namespace obi::blocks
